// bitwise_or.Tensor_out and bitwise_or.Scalar_out: self | other on integers and Bool.
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// One functor for both overloads, so they share their loops.
constexpr auto kBitwiseOr = [](auto a, auto b) { return decltype(a)(a | b); };

}  // namespace

Tensor& bitwise_or_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                              Tensor& out) {
  return bitwise_out(ctx, "bitwise_or", self, other, out, kBitwiseOr);
}

Tensor& bitwise_or_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                              Tensor& out) {
  return bitwise_out(ctx, "bitwise_or", self, other, out, kBitwiseOr);
}

}  // namespace kiln::portable::native
