// bitwise_and.Tensor_out and bitwise_and.Scalar_out: self & other on integers and Bool.
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// One functor for both overloads, so they share their loops.
constexpr auto kBitwiseAnd = [](auto a, auto b) { return decltype(a)(a & b); };

}  // namespace

Tensor& bitwise_and_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                               Tensor& out) {
  return bitwise_out(ctx, "bitwise_and", self, other, out, kBitwiseAnd);
}

Tensor& bitwise_and_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                               Tensor& out) {
  return bitwise_out(ctx, "bitwise_and", self, other, out, kBitwiseAnd);
}

}  // namespace kiln::portable::native
