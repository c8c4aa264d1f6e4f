// _adaptive_avg_pool2d.out: averages over the windows [floor(o * in / out), ceil((o + 1) * in /
// out)).
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/spatial/pooling.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

inline int64_t window_start(int64_t o, int64_t out, int64_t in) { return o * in / out; }
inline int64_t window_end(int64_t o, int64_t out, int64_t in) {
  return ((o + 1) * in + out - 1) / out;
}

template <typename T>
void adaptive_planes(const T* in, T* out, int64_t planes, int64_t in_h, int64_t in_w, int64_t out_h,
                     int64_t out_w) {
  using C = compute_type_t<T>;
  for (int64_t plane = 0; plane < planes; ++plane) {
    const T* src = in + plane * in_h * in_w;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      const int64_t h0 = window_start(oh, out_h, in_h);
      const int64_t h1 = window_end(oh, out_h, in_h);
      for (int64_t ow = 0; ow < out_w; ++ow) {
        const int64_t w0 = window_start(ow, out_w, in_w);
        const int64_t w1 = window_end(ow, out_w, in_w);
        C sum = C(0);
        for (int64_t ih = h0; ih < h1; ++ih) {
          for (int64_t iw = w0; iw < w1; ++iw) sum += static_cast<C>(src[ih * in_w + iw]);
        }
        *out++ = T(sum / static_cast<C>(h1 - h0) / static_cast<C>(w1 - w0));
      }
    }
  }
}

}  // namespace

Tensor& _adaptive_avg_pool2d_out(KernelRuntimeContext& ctx, const Tensor& self,
                                 IntArrayRef output_size, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, output_size.size() == 2, InvalidArgument, out,
                        "adaptive_avg_pool2d: output_size must be 2");
  KILN_KERNEL_CHECK_MSG(ctx, output_size[0] >= 0 && output_size[1] >= 0, InvalidArgument, out,
                        "adaptive_avg_pool2d: elements of output_size must be greater than or "
                        "equal to 0 but received {%lld, %lld}",
                        static_cast<long long>(output_size[0]),
                        static_cast<long long>(output_size[1]));
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() == 3 || self.dim() == 4, InvalidArgument, out,
                        "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %s",
                        format_shape(self.sizes()).text);
  for (int64_t d = self.dim() - 3; d < self.dim(); ++d) {
    KILN_KERNEL_CHECK_MSG(ctx, self.size(d) != 0, InvalidArgument, out,
                          "adaptive_avg_pool2d(): Expected input to have non-zero size for "
                          "non-batch dimensions, but input has sizes %s with dimension %lld "
                          "being empty",
                          format_shape(self.sizes()).text, static_cast<long long>(d));
  }
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(dtype), InvalidType, out,
                        "\"adaptive_avg_pool2d\" not implemented for '%s'", to_string(dtype));
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  const int64_t out_h = output_size[0];
  const int64_t out_w = output_size[1];
  if (!resize_pool2d_out(ctx, self, out_h, out_w, out)) return out;
  const int64_t in_h = self.size(-2);
  const int64_t in_w = self.size(-1);
  const int64_t planes = self.numel() / (in_h * in_w);
  dispatch_element_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (!std::is_integral_v<T>) {  // the floating dtypes checked above
      adaptive_planes(self.const_data_ptr<T>(), out.mutable_data_ptr<T>(), planes, in_h, in_w,
                      out_h, out_w);
    }
  });
  return out;
}

}  // namespace kiln::portable::native
