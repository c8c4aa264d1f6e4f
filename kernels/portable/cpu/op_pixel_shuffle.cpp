// pixel_shuffle.out: self's [*, C*r*r, H, W] rearranged into [*, C, H*r, W*r]: channel
// c*r*r + i*r + j of pixel (h, w) moves to pixel (h*r + i, w*r + j) of channel c.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& pixel_shuffle_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t upscale_factor,
                          Tensor& out) {
  const int64_t rank = self.dim();
  KILN_KERNEL_CHECK_MSG(ctx, rank >= 3, InvalidArgument, out,
                        "pixel_shuffle expects input to have at least 3 dimensions, but got input "
                        "with %lld dimension(s)",
                        static_cast<long long>(rank));
  const int64_t r = upscale_factor;
  KILN_KERNEL_CHECK_MSG(ctx, r > 0, InvalidArgument, out,
                        "pixel_shuffle expects a positive upscale_factor, but got %lld",
                        static_cast<long long>(r));
  const int64_t channels = self.size(rank - 3);
  const int64_t height = self.size(rank - 2);
  const int64_t width = self.size(rank - 1);
  int64_t group = 0;  // r * r
  int64_t out_height = 0;
  int64_t out_width = 0;
  KILN_KERNEL_CHECK_MSG(ctx,
                        !__builtin_mul_overflow(r, r, &group) &&
                            !__builtin_mul_overflow(height, r, &out_height) &&
                            !__builtin_mul_overflow(width, r, &out_width),
                        InvalidArgument, out,
                        "pixel_shuffle: upscale_factor %lld makes the output too large for input "
                        "of shape %s",
                        static_cast<long long>(r), format_shape(self.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, channels % group == 0, InvalidArgument, out,
                        "pixel_shuffle expects its input's 'channel' dimension to be divisible by "
                        "the square of upscale_factor, but input.size(-3)=%lld is not divisible "
                        "by %lld",
                        static_cast<long long>(channels), static_cast<long long>(group));
  SizesType sizes[kTensorDimensionLimit];
  int64_t batch = 1;
  for (int64_t d = 0; d < rank - 3; ++d) {
    sizes[d] = self.size(d);
    batch *= sizes[d];
  }
  const int64_t out_channels = channels / group;
  sizes[rank - 3] = out_channels;
  sizes[rank - 2] = out_height;
  sizes[rank - 1] = out_width;
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(rank)})) return out;
  if (out.numel() == 0) return out;
  // Out as [batch, C, H, i, W, j] (contiguous), read from self as [batch, C, i, j, H, W].
  const int64_t plane = height * width;
  CopyView view;
  view.push(batch, out_channels * out_height * out_width, channels * plane);
  view.push(out_channels, out_height * out_width, group * plane);
  view.push(height, r * out_width, width);
  view.push(r, out_width, r * plane);
  view.push(width, r, 1);
  view.push(r, 1, plane);
  copy_view(ctx, out.mutable_data_ptr(), self.const_data_ptr(), view, self.element_size());
  return out;
}

}  // namespace kiln::portable::native
