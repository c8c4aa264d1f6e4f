// permute_copy, transpose_copy and t_copy: self's dims reordered, copied by a tiled strided copy.
#include <cstdint>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// out = self with dim i of out taken from dim perm[i] of self (perm already validated).
Tensor& permuted_copy(KernelRuntimeContext& ctx, const Tensor& self, const int64_t* perm,
                      Tensor& out) {
  const int64_t rank = self.dim();
  int64_t strides[kTensorDimensionLimit];
  contiguous_strides(self.sizes(), strides);
  SizesType sizes[kTensorDimensionLimit];
  int64_t src_strides[kTensorDimensionLimit];
  for (int64_t i = 0; i < rank; ++i) {
    sizes[i] = self.size(perm[i]);
    src_strides[i] = strides[perm[i]];
  }
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(rank)})) return out;
  copy_strided_to_out(self, sizes, src_strides, rank, 0, out);
  return out;
}

}  // namespace

Tensor& permute_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dims,
                         Tensor& out) {
  const int64_t rank = self.dim();
  KILN_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(dims.size()) == rank, InvalidArgument, out,
                        "permute(): number of dims don't match in permute: input.dim() = %lld "
                        "is not equal to len(dims) = %zu",
                        static_cast<long long>(rank), dims.size());
  int64_t perm[kTensorDimensionLimit];
  bool seen[kTensorDimensionLimit] = {};
  for (int64_t i = 0; i < rank; ++i) {
    if (!wrap_dim(ctx, dims[i], rank, &perm[i])) return out;
    KILN_KERNEL_CHECK_MSG(ctx, !seen[perm[i]], InvalidArgument, out,
                          "permute(): duplicate dims are not allowed (dim %lld repeats)",
                          static_cast<long long>(perm[i]));
    seen[perm[i]] = true;
  }
  return permuted_copy(ctx, self, perm, out);
}

Tensor& transpose_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim0,
                               int64_t dim1, Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d0 = 0;
  int64_t d1 = 0;
  if (!wrap_dim(ctx, dim0, rank, &d0) || !wrap_dim(ctx, dim1, rank, &d1)) return out;
  int64_t perm[kTensorDimensionLimit];
  for (int64_t i = 0; i < rank; ++i) perm[i] = i;
  if (rank > 0) {
    perm[d0] = d1;
    perm[d1] = d0;
  }
  return permuted_copy(ctx, self, perm, out);
}

Tensor& t_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() <= 2, InvalidArgument, out,
                        "t() expects a tensor with <= 2 dimensions, but self is %lldD",
                        static_cast<long long>(self.dim()));
  const int64_t perm[2] = {self.dim() == 2 ? 1 : 0, 0};
  return permuted_copy(ctx, self, perm, out);
}

}  // namespace kiln::portable::native
