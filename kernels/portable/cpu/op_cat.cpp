// cat.out: tensors joined along an existing dim, promoted as torch.cat promotes.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/join.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& cat_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, int64_t dim, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out,
                        "torch.cat(): expected a non-empty list of Tensors");
  for (size_t i = 0; i < tensors.size(); ++i) {
    KILN_KERNEL_CHECK_MSG(ctx, tensors[i].dim() > 0, InvalidArgument, out,
                          "zero-dimensional tensor (at position %zu) cannot be concatenated", i);
  }
  if (!check_join_dtypes(ctx, tensors, out)) return out;
  // The first input cat does not skip fixes the rank and the other sizes.
  size_t first = 0;
  while (first < tensors.size() && skipped_by_cat(tensors[first])) ++first;
  if (first == tensors.size()) {
    const SizesType empty[1] = {0};
    (void)resize_or_fail(ctx, out, {empty, 1});
    return out;
  }
  const Tensor& ref = tensors[first];
  const int64_t rank = ref.dim();
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, rank, &d)) return out;
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t i = 0; i < rank; ++i) sizes[i] = ref.size(i);
  sizes[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped_by_cat(t)) continue;
    KILN_KERNEL_CHECK_MSG(ctx, t.dim() == rank, InvalidArgument, out,
                          "Tensors must have same number of dimensions: got %lld and %lld",
                          static_cast<long long>(rank), static_cast<long long>(t.dim()));
    for (int64_t j = 0; j < rank; ++j) {
      KILN_KERNEL_CHECK_MSG(ctx, j == d || t.size(j) == ref.size(j), InvalidArgument, out,
                            "Sizes of tensors must match except in dimension %lld. Expected size "
                            "%lld but got size %lld for tensor number %zu in the list.",
                            static_cast<long long>(d), static_cast<long long>(ref.size(j)),
                            static_cast<long long>(t.size(j)), i);
    }
    sizes[d] += t.size(d);
  }
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)})) return out;
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t j = 0; j < d; ++j) outer *= sizes[j];
  for (int64_t j = d + 1; j < rank; ++j) inner *= sizes[j];
  join_blocks(tensors, outer, inner, sizes[d], false, d, out);
  return out;
}

}  // namespace kiln::portable::native
