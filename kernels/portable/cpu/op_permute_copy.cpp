// permute_copy.out: self with its dims reordered by `dims`, copied by a tiled strided copy.
#include <cstdint>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

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

}  // namespace kiln::portable::native
