// pixel_unshuffle.out: the inverse of pixel_shuffle, self's [*, C, H*r, W*r] rearranged into
// [*, C*r*r, H, W]: pixel (h*r + i, w*r + j) of channel c moves to channel c*r*r + i*r + j.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& pixel_unshuffle_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t downscale_factor,
                            Tensor& out) {
  const int64_t rank = self.dim();
  KILN_KERNEL_CHECK_MSG(ctx, rank >= 3, InvalidArgument, out,
                        "pixel_unshuffle expects input to have at least 3 dimensions, but got "
                        "input with %lld dimension(s)",
                        static_cast<long long>(rank));
  const int64_t r = downscale_factor;
  KILN_KERNEL_CHECK_MSG(ctx, r > 0, InvalidArgument, out,
                        "pixel_unshuffle expects a positive downscale_factor, but got %lld",
                        static_cast<long long>(r));
  const int64_t channels = self.size(rank - 3);
  const int64_t height = self.size(rank - 2);
  const int64_t width = self.size(rank - 1);
  KILN_KERNEL_CHECK_MSG(ctx, height % r == 0, InvalidArgument, out,
                        "pixel_unshuffle expects height to be divisible by downscale_factor, but "
                        "input.size(-2)=%lld is not divisible by %lld",
                        static_cast<long long>(height), static_cast<long long>(r));
  KILN_KERNEL_CHECK_MSG(ctx, width % r == 0, InvalidArgument, out,
                        "pixel_unshuffle expects width to be divisible by downscale_factor, but "
                        "input.size(-1)=%lld is not divisible by %lld",
                        static_cast<long long>(width), static_cast<long long>(r));
  int64_t out_channels = 0;
  KILN_KERNEL_CHECK_MSG(ctx, !__builtin_mul_overflow(channels, r * r, &out_channels),
                        InvalidArgument, out,
                        "pixel_unshuffle: downscale_factor %lld makes the output too large for "
                        "input of shape %s",
                        static_cast<long long>(r), format_shape(self.sizes()).text);
  // ATen returns an empty input as it is, keeping its shape.
  if (self.numel() == 0) {
    (void)prepare_copy_out(ctx, self, out, self.sizes());
    return out;
  }
  SizesType sizes[kTensorDimensionLimit];
  int64_t batch = 1;
  for (int64_t d = 0; d < rank - 3; ++d) {
    sizes[d] = self.size(d);
    batch *= sizes[d];
  }
  const int64_t out_height = height / r;
  const int64_t out_width = width / r;
  sizes[rank - 3] = out_channels;
  sizes[rank - 2] = out_height;
  sizes[rank - 1] = out_width;
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(rank)})) return out;
  // Out as [batch, C, i, j, H, W] (contiguous), read from self as [batch, C, H, i, W, j].
  const int64_t view_sizes[6] = {batch, channels, r, r, out_height, out_width};
  const int64_t src_strides[6] = {
      channels * height * width, height * width, width, 1, r * width, r};
  copy_strided_to_out(ctx, self, view_sizes, src_strides, 6, 0, out);
  return out;
}

}  // namespace kiln::portable::native
