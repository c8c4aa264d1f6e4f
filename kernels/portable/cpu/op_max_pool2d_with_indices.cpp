// max_pool2d_with_indices.out: 2-D max pooling with flat (h * W + w) argmax indices per plane.
#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/spatial/pooling.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// The window starts (clamped to the first in-bounds tap) and ends (exclusive) along one dim.
struct Window {
  int64_t start, end;
};
inline Window window(int64_t o, const Pool2dGeometry& g, int d, int64_t in) {
  int64_t start = o * g.stride[d] - g.padding[d];
  const int64_t end_raw = start + (g.kernel[d] - 1) * g.dilation[d] + 1;
  while (start < 0) start += g.dilation[d];
  return {start, end_raw < in ? end_raw : in};
}

// Outputs of a row computed together: their maxima and indices live on the stack.
constexpr int64_t kRowBlock = 256;

// ATen's rule: a larger value or any NaN takes over, so the last NaN in the window wins; the
// index starts at the window's first tap. Taps are visited in ATen's order (rows, then columns)
// for each output, but tap by tap across a block of outputs of one row, so that the selects run
// over consecutive outputs without a branch.
template <typename T>
KILN_ALWAYS_INLINE void max_pool_planes(const T* in, T* out, int64_t* indices,
                                        const Pool2dGeometry& g, int64_t first_plane,
                                        int64_t end_plane) {
  using V = std::conditional_t<std::is_integral_v<T>, T,
                               std::conditional_t<std::is_same_v<T, double>, double, float>>;
  const int64_t dh = g.dilation[0], dw = g.dilation[1], sw = g.stride[1];
  V best[kRowBlock];
  int64_t where[kRowBlock];
  for (int64_t plane = first_plane; plane < end_plane; ++plane) {
    const T* src = in + plane * g.in_h * g.in_w;
    T* dst = out + plane * g.out_h * g.out_w;
    int64_t* dst_index = indices + plane * g.out_h * g.out_w;
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      const Window h = window(oh, g, 0, g.in_h);
      for (int64_t ow0 = 0; ow0 < g.out_w; ow0 += kRowBlock) {
        const int64_t count = g.out_w - ow0 < kRowBlock ? g.out_w - ow0 : kRowBlock;
        for (int64_t j = 0; j < count; ++j) {
          best[j] = std::is_integral_v<V> ? std::numeric_limits<V>::lowest()
                                          : -std::numeric_limits<V>::infinity();
          where[j] = h.start * g.in_w + window(ow0 + j, g, 1, g.in_w).start;
        }
        for (int64_t ih = h.start; ih < h.end; ih += dh) {
          const T* row = src + ih * g.in_w;
          for (int64_t kw = 0; kw < g.kernel[1]; ++kw) {
            // Output j reads column (ow0 + j) * sw + shift: inside the row for j in [lo, hi).
            const int64_t shift = ow0 * sw - g.padding[1] + kw * dw;
            int64_t lo = shift >= 0 ? 0 : (-shift + sw - 1) / sw;
            int64_t hi = shift >= g.in_w ? 0 : (g.in_w - shift + sw - 1) / sw;
            if (hi > count) hi = count;
            for (int64_t j = lo; j < hi; ++j) {
              const int64_t iw = j * sw + shift;
              const V value = static_cast<V>(row[iw]);
              bool take = value > best[j];
              if constexpr (!std::is_integral_v<V>) take = take || value != value;
              best[j] = take ? value : best[j];
              where[j] = take ? ih * g.in_w + iw : where[j];
            }
          }
        }
        // An empty window (dilation past the edge) keeps -inf.
        for (int64_t j = 0; j < count; ++j) dst[ow0 + j] = static_cast<T>(best[j]);
        for (int64_t j = 0; j < count; ++j) dst_index[ow0 + j] = where[j];
      }
      dst += g.out_w;
      dst_index += g.out_w;
    }
  }
}

KILN_HOT_LOOP void max_pool_float(const float* in, float* out, int64_t* indices,
                                  const Pool2dGeometry& g, int64_t first_plane, int64_t end_plane) {
  max_pool_planes(in, out, indices, g, first_plane, end_plane);
}

}  // namespace

std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(
    KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
    IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, Tensor& out, Tensor& indices) {
  std::tuple<Tensor&, Tensor&> result(out, indices);
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out") ||
      !check_tensor(ctx, indices, "indices")) {
    return result;
  }
  Pool2dGeometry g;
  if (!pool2d_geometry(ctx, "max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode,
                       &g)) {
    return result;
  }
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidType, result,
                        "\"max_pool2d\" not implemented for 'Bool'");
  if (!check_out_dtype_is(ctx, out, self.scalar_type()) ||
      !check_out_dtype_is(ctx, indices, ScalarType::Long)) {
    return result;
  }
  if (!resize_pool2d_out(ctx, self, g.out_h, g.out_w, out) ||
      !resize_pool2d_out(ctx, self, g.out_h, g.out_w, indices)) {
    return result;
  }
  int64_t* index_data = indices.mutable_data_ptr<int64_t>();
  const int64_t taps = g.kernel[0] * g.kernel[1];
  dispatch_element_type(self.scalar_type(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* in = self.const_data_ptr<T>();
    T* dst = out.mutable_data_ptr<T>();
    // Planes are independent: each thread takes whole planes.
    parallel_for(ctx, 0, g.planes, items_grain(g.out_h * g.out_w * taps),
                 [&](int64_t begin, int64_t end) {
                   if constexpr (std::is_same_v<T, float>) {
                     max_pool_float(in, dst, index_data, g, begin, end);
                   } else if constexpr (!std::is_same_v<T, bool>) {  // Bool is refused above
                     max_pool_planes(in, dst, index_data, g, begin, end);
                   }
                 });
  });
  return result;
}

}  // namespace kiln::portable::native
