// sub.out and sub.Scalar_out: out = self - alpha * other; bool operands are refused, as in ATen.
#include "kernels/portable/cpu/util/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// ATen refuses bool operands of subtraction.
bool check_sub_operands(KernelRuntimeContext& ctx, bool self_bool, bool other_bool) {
  KILN_KERNEL_CHECK_MSG(ctx, !(self_bool && other_bool), InvalidArgument, false,
                        "Subtraction, the `-` operator, with two bool tensors is not supported; "
                        "use logical_xor instead");
  KILN_KERNEL_CHECK_MSG(ctx, !self_bool && !other_bool, InvalidArgument, false,
                        "Subtraction, the `-` operator, with a bool tensor is not supported; "
                        "to invert a mask use logical_not, or convert the tensor to an integer "
                        "dtype first");
  return true;
}

}  // namespace

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
