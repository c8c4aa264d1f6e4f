// avg_pool2d.out: 2-D average pooling (ceil_mode, count_include_pad, divisor_override) as ATen.
#include <optional>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/spatial/pooling.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Sums in the compute type (float for the 16-bit floats, int64 for Long, whose division
// truncates as ATen's does) and divides by the window's divisor.
template <typename T>
void avg_pool_planes(const T* in, T* out, const Pool2dGeometry& g, bool count_include_pad,
                     int64_t divisor_override) {
  using C = compute_type_t<T>;
  for (int64_t plane = 0; plane < g.planes; ++plane) {
    const T* src = in + plane * g.in_h * g.in_w;
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      int64_t h0 = oh * g.stride[0] - g.padding[0];
      int64_t h1 = h0 + g.kernel[0];
      h1 = h1 < g.in_h + g.padding[0] ? h1 : g.in_h + g.padding[0];
      const int64_t pool_h = h1 - h0;
      h0 = h0 > 0 ? h0 : 0;
      h1 = h1 < g.in_h ? h1 : g.in_h;
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        int64_t w0 = ow * g.stride[1] - g.padding[1];
        int64_t w1 = w0 + g.kernel[1];
        w1 = w1 < g.in_w + g.padding[1] ? w1 : g.in_w + g.padding[1];
        const int64_t pool_size = pool_h * (w1 - w0);
        w0 = w0 > 0 ? w0 : 0;
        w1 = w1 < g.in_w ? w1 : g.in_w;
        if (h0 >= h1 || w0 >= w1) {
          *out++ = T(C(0));
          continue;
        }
        C sum = C(0);
        for (int64_t ih = h0; ih < h1; ++ih) {
          for (int64_t iw = w0; iw < w1; ++iw) sum += static_cast<C>(src[ih * g.in_w + iw]);
        }
        const int64_t divisor = divisor_override != 0 ? divisor_override
                                : count_include_pad   ? pool_size
                                                      : (h1 - h0) * (w1 - w0);
        *out++ = T(sum / static_cast<C>(divisor));
      }
    }
  }
}

}  // namespace

Tensor& avg_pool2d_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                       IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                       bool count_include_pad, std::optional<int64_t> divisor_override,
                       Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, padding.size() == 1 || padding.size() == 2, InvalidArgument, out,
                        "avg_pool2d: padding must either be a single int, or a tuple of two ints");
  Pool2dGeometry g;
  if (!pool2d_geometry(ctx, "avg_pool2d", self, kernel_size, stride, padding, {}, ceil_mode, &g)) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, !divisor_override.has_value() || *divisor_override != 0,
                        InvalidArgument, out, "divisor must be not zero");
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(dtype) || dtype == ScalarType::Long, InvalidType, out,
                        "\"avg_pool2d\" not implemented for '%s'", to_string(dtype));
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  if (!resize_pool2d_out(ctx, self, g.out_h, g.out_w, out)) return out;
  const int64_t divisor = divisor_override.value_or(0);
  dispatch_element_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, int64_t> || !std::is_integral_v<T>) {  // as checked above
      avg_pool_planes(self.const_data_ptr<T>(), out.mutable_data_ptr<T>(), g, count_include_pad,
                      divisor);
    }
  });
  return out;
}

}  // namespace kiln::portable::native
