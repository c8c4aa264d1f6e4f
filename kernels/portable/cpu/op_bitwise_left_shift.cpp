// bitwise_left_shift.Tensor_out and bitwise_left_shift.Tensor_Scalar_out: self shifted left by
// other bits in the promoted integer dtype; counts outside [0, bit width) shift every bit out.
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// One functor for both overloads, so they share their loops.
constexpr auto kShiftLeft = [](auto a, auto b) { return shift_left(a, b); };

}  // namespace

Tensor& bitwise_left_shift_tensor_out(KernelRuntimeContext& ctx, const Tensor& self,
                                      const Tensor& other, Tensor& out) {
  return shift_out(ctx, "bitwise_left_shift", self, other, out, kShiftLeft);
}

Tensor& bitwise_left_shift_tensor_scalar_out(KernelRuntimeContext& ctx, const Tensor& self,
                                             const Scalar& other, Tensor& out) {
  return shift_out(ctx, "bitwise_left_shift", self, other, out, kShiftLeft);
}

}  // namespace kiln::portable::native
