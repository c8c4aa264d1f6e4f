// amin.out: the smallest value over dims, NaN winning, in self's dtype.
#include "kernels/portable/cpu/util/reduce/select_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& amin_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                 Tensor& out) {
  return amax_amin(ctx, self, dim, keepdim, /*max=*/false, out);
}

}  // namespace kiln::portable::native
