// mul.out and mul.Scalar_out: out = self * other.
#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "kernels/portable/cpu/util/elementwise/binary_driver.h"
#include "kernels/portable/cpu/util/elementwise/binary_ops.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// a * b, wrapping for integers: the same bits for signed and unsigned operands.
struct Multiply {
  static constexpr bool kSignAgnostic = true;
  template <typename T>
  T operator()(T a, T b) const {
    return wrapping_mul(a, b);
  }
};

// self * other once out is checked and resized.
Tensor& mul(const KernelRuntimeContext& ctx, const Tensor& self, const ElementwiseInput& other,
            ScalarType common, Tensor& out) {
  apply_binary_op<kAllTypes, ScalarOther::kExact>(ctx, ElementwiseInput::of(self), other, common,
                                                  out, [](auto) { return Multiply{}; });
  return out;
}

}  // namespace

Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  return mul(ctx, self, ElementwiseInput::of(other), common, out);
}

Tensor& mul_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kExact);
  if (common == ScalarType::Undefined) return out;
  ScalarStorage storage;
  return mul(ctx, self, scalar_input(other, storage), common, out);
}

}  // namespace kiln::portable::native
