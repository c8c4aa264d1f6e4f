// rsub.Scalar_out: out = other - alpha * self (subtraction with the operands swapped); bool
// operands are refused, as in ATen.
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& rsub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                        const Scalar& alpha, Tensor& out) {
  if (!check_sub_operands(ctx, self.scalar_type() == ScalarType::Bool, other.isBoolean())) {
    return out;
  }
  return add_sub_out</*kSubtract=*/true, /*kReversed=*/true>(ctx, self, other, alpha, out);
}

}  // namespace kiln::portable::native
