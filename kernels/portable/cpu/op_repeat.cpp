// repeat.out: self tiled `repeats` times along each dim, as a copy with 0 strides.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& repeat_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef repeats,
                   Tensor& out) {
  const int64_t rank = self.dim();
  const int64_t ndim = static_cast<int64_t>(repeats.size());
  KILN_KERNEL_CHECK_MSG(ctx, ndim >= rank, InvalidArgument, out,
                        "Number of dimensions of repeat dims can not be smaller than number of "
                        "dimensions of tensor (repeats %s, tensor %s)",
                        format_shape(repeats).text, format_shape(self.sizes()).text);
  if (!check_rank_limit(ctx, repeats.size(), "repeats")) return out;
  int64_t strides[kTensorDimensionLimit];
  contiguous_strides(self.sizes(), strides);
  SizesType sizes[kTensorDimensionLimit];
  // Out viewed as [repeats[0], size[0], repeats[1], size[1], ...]; the copies read stride 0.
  int64_t view_sizes[2 * kTensorDimensionLimit];
  int64_t view_strides[2 * kTensorDimensionLimit];
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t d = i - (ndim - rank);
    const int64_t have = d < 0 ? 1 : self.size(d);
    // Only the resulting size must be non-negative: an empty dim may repeat -1 times.
    sizes[i] = have * repeats[i];
    KILN_KERNEL_CHECK_MSG(ctx, sizes[i] >= 0, InvalidArgument, out,
                          "Trying to create tensor with negative dimension %lld: %s",
                          static_cast<long long>(sizes[i]), format_shape(repeats).text);
    view_sizes[2 * i] = repeats[i];
    view_strides[2 * i] = 0;
    view_sizes[2 * i + 1] = have;
    view_strides[2 * i + 1] = d < 0 ? 0 : strides[d];
  }
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(ndim)})) return out;
  copy_strided_to_out(ctx, self, view_sizes, view_strides, 2 * ndim, 0, out);
  return out;
}

}  // namespace kiln::portable::native
