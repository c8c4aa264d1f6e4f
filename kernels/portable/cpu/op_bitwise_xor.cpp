// bitwise_xor.Tensor_out and bitwise_xor.Scalar_out: self ^ other on integers and Bool.
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// One functor for both overloads, so they share their loops.
constexpr auto kBitwiseXor = [](auto a, auto b) { return decltype(a)(a ^ b); };

}  // namespace

Tensor& bitwise_xor_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                               Tensor& out) {
  return bitwise_out(ctx, "bitwise_xor", self, other, out, kBitwiseXor);
}

Tensor& bitwise_xor_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                               Tensor& out) {
  return bitwise_out(ctx, "bitwise_xor", self, other, out, kBitwiseXor);
}

}  // namespace kiln::portable::native
