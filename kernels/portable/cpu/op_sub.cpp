// sub.out and sub.Scalar_out: out = self - alpha * other; bool operands are refused, as in ATen.
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& sub_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  if (!check_sub_operands(ctx, self.scalar_type() == ScalarType::Bool,
                          other.scalar_type() == ScalarType::Bool)) {
    return out;
  }
  return add_sub_out</*kSubtract=*/true>(ctx, self, other, alpha, out);
}

Tensor& sub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  if (!check_sub_operands(ctx, self.scalar_type() == ScalarType::Bool, other.isBoolean())) {
    return out;
  }
  return add_sub_out</*kSubtract=*/true>(ctx, self, other, alpha, out);
}

}  // namespace kiln::portable::native
