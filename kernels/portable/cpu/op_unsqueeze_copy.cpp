// unsqueeze_copy.out: self's bytes under its shape with a size-1 dim inserted at `dim`.
#include <cstdint>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& unsqueeze_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                           Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, rank + 1, &d)) return out;
  KILN_KERNEL_CHECK_MSG(ctx, rank < static_cast<int64_t>(kTensorDimensionLimit), InvalidArgument,
                        out, "unsqueeze of a %lld-dim tensor exceeds %zu dims",
                        static_cast<long long>(rank), kTensorDimensionLimit);
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t i = 0, j = 0; i <= rank; ++i) sizes[i] = i == d ? 1 : self.size(j++);
  return reshaped_copy(ctx, self, sizes, rank + 1, out);
}

}  // namespace kiln::portable::native
