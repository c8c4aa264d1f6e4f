// slice_copy.Tensor_out: a strided range of one dim of self, copied out.
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& slice_copy_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                              std::optional<int64_t> start, std::optional<int64_t> end,
                              int64_t step, Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  if (!wrap_sliced_dim(ctx, "slice", dim, rank, &d)) return out;
  KILN_KERNEL_CHECK_MSG(ctx, step > 0, InvalidArgument, out, "slice step must be positive");
  // Python's slice clamping, as ATen does it.
  const int64_t n = self.size(d);
  int64_t first = start.value_or(0);
  int64_t last = end.value_or(INT64_MAX);
  if (first < 0) first += n;
  if (last < 0) last += n;
  first = first < 0 ? 0 : (first > n ? n : first);
  last = last < first ? first : (last > n ? n : last);
  const int64_t length = last > first ? (last - first - 1) / step + 1 : 0;

  int64_t strides[kTensorDimensionLimit];
  contiguous_strides(self.sizes(), strides);
  SizesType sizes[kTensorDimensionLimit];
  int64_t src_strides[kTensorDimensionLimit];
  for (int64_t i = 0; i < rank; ++i) {
    sizes[i] = i == d ? length : self.size(i);
    src_strides[i] = i == d ? strides[i] * step : strides[i];
  }
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(rank)})) return out;
  copy_strided_to_out(ctx, self, sizes, src_strides, rank, length > 0 ? first * strides[d] : 0,
                      out);
  return out;
}

}  // namespace kiln::portable::native
