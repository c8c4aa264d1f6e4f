// stack.out: same-shape tensors joined along a new dim, promoted as torch.cat promotes.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/join.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& stack_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, int64_t dim, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out,
                        "stack expects a non-empty TensorList");
  const Tensor& ref = tensors[0];
  const int64_t rank = ref.dim();
  for (size_t i = 1; i < tensors.size(); ++i) {
    bool same = tensors[i].dim() == rank;
    for (int64_t j = 0; same && j < rank; ++j) same = tensors[i].size(j) == ref.size(j);
    KILN_KERNEL_CHECK_MSG(ctx, same, InvalidArgument, out,
                          "stack expects each tensor to be equal size, but got %s at entry 0 and "
                          "%s at entry %zu",
                          format_shape(ref.sizes()).text, format_shape(tensors[i].sizes()).text, i);
  }
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, rank + 1, &d)) return out;
  KILN_KERNEL_CHECK_MSG(ctx, rank < static_cast<int64_t>(kTensorDimensionLimit), InvalidArgument,
                        out, "stack of %lld-dim tensors exceeds %zu dims",
                        static_cast<long long>(rank), kTensorDimensionLimit);
  if (!check_join_dtypes(ctx, tensors, out)) return out;
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t i = 0, j = 0; i <= rank; ++i) {
    sizes[i] = i == d ? static_cast<int64_t>(tensors.size()) : ref.size(j++);
  }
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank + 1)})) return out;
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t j = 0; j < d; ++j) outer *= sizes[j];
  for (int64_t j = d + 1; j <= rank; ++j) inner *= sizes[j];
  join_blocks(tensors, outer, inner, sizes[d], true, d, out);
  return out;
}

}  // namespace kiln::portable::native
