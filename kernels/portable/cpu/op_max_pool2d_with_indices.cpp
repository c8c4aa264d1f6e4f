// max_pool2d_with_indices.out: 2-D max pooling with flat (h * W + w) argmax indices per plane.
#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
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

// ATen's rule: a larger value or any NaN takes over, so the last NaN in the window wins.
template <typename T>
void max_pool_planes(const T* in, T* out, int64_t* indices, const Pool2dGeometry& g) {
  using V = std::conditional_t<std::is_integral_v<T>, T,
                               std::conditional_t<std::is_same_v<T, double>, double, float>>;
  const int64_t dh = g.dilation[0];
  const int64_t dw = g.dilation[1];
  for (int64_t plane = 0; plane < g.planes; ++plane) {
    const T* src = in + plane * g.in_h * g.in_w;
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      const Window h = window(oh, g, 0, g.in_h);
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        const Window w = window(ow, g, 1, g.in_w);
        int64_t best = h.start * g.in_w + w.start;
        V best_value = std::is_integral_v<V> ? std::numeric_limits<V>::lowest()
                                             : -std::numeric_limits<V>::infinity();
        for (int64_t ih = h.start; ih < h.end; ih += dh) {
          for (int64_t iw = w.start; iw < w.end; iw += dw) {
            const V value = static_cast<V>(src[ih * g.in_w + iw]);
            bool nan = false;
            if constexpr (!std::is_integral_v<V>) nan = value != value;
            if (value > best_value || nan) {
              best_value = value;
              best = ih * g.in_w + iw;
            }
          }
        }
        *out++ = static_cast<T>(best_value);  // an empty window (dilation past the edge) keeps -inf
        *indices++ = best;
      }
    }
  }
}

KILN_HOT_LOOP void max_pool_float(const float* in, float* out, int64_t* indices,
                                  const Pool2dGeometry& g) {
  max_pool_planes(in, out, indices, g);
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
  dispatch_element_type(self.scalar_type(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* in = self.const_data_ptr<T>();
    T* dst = out.mutable_data_ptr<T>();
    if constexpr (std::is_same_v<T, float>) {
      max_pool_float(in, dst, index_data, g);
    } else if constexpr (!std::is_same_v<T, bool>) {  // Bool is refused above
      max_pool_planes(in, dst, index_data, g);
    }
  });
  return result;
}

}  // namespace kiln::portable::native
