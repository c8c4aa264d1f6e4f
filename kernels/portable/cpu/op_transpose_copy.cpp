// transpose_copy.int_out: self with dims dim0 and dim1 swapped, copied by a tiled strided copy.
#include <cstdint>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

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

}  // namespace kiln::portable::native
