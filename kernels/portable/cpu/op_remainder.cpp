// remainder.Tensor_out and remainder.Scalar_out: self modulo other with the sign of the divisor
// (Python's %).
#include <type_traits>

#include "kernels/portable/cpu/util/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Python's %: the result takes the sign of the divisor.
constexpr auto kRemainder = [](auto a, auto b) {
  if constexpr (std::is_integral_v<decltype(a)>) {
    return remainder_int(a, b);
  } else {
    return remainder_float(a, b);
  }
};

}  // namespace

Tensor& remainder_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                             Tensor& out) {
  return modulo_out(ctx, "remainder", self, other, out, kRemainder);
}

Tensor& remainder_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                             Tensor& out) {
  return modulo_out(ctx, "remainder", self, other, out, kRemainder);
}

}  // namespace kiln::portable::native
