// remainder.Tensor_out and remainder.Scalar_out: self modulo other with the sign of the divisor
// (Python's %).
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Python's %: the result takes the sign of the divisor.
struct Remainder {
  static constexpr bool kRemainder = true;
  template <typename T>
  T operator()(T a, T b) const {
    return remainder_int(a, b);
  }
};
constexpr Remainder kRemainder;

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
