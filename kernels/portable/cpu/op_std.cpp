// std.correction_out: the square root of var.correction_out, computed in double.
#include <optional>

#include "kernels/portable/cpu/util/reduce/variance.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& std_correction_out(KernelRuntimeContext& ctx, const Tensor& self,
                           std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                           bool keepdim, Tensor& out) {
  return var_std(ctx, self, dim, correction, keepdim, /*take_sqrt=*/true, out);
}

}  // namespace kiln::portable::native
