// add.out, add.Scalar_out, sub.out and sub.Scalar_out: out = self + alpha * other (sub: minus).
#include "kernels/portable/cpu/util/binary_ops.h"
#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/elementwise.h"
#include "kernels/portable/cpu/util/math.h"
#include "kernels/portable/cpu/util/scalar_util.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// ATen's alpha rules: bool alpha only for bool results, no fractional alpha for integer results.
bool check_alpha(KernelRuntimeContext& ctx, const Scalar& alpha, ScalarType common) {
  KILN_KERNEL_CHECK_MSG(ctx, !alpha.isBoolean() || common == ScalarType::Bool, InvalidArgument,
                        false,
                        "Boolean alpha only supported for Boolean results (result dtype is %s); "
                        "pass alpha as a number",
                        to_string(common));
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(common) || alpha.isIntegral(true), InvalidArgument,
                        false,
                        "For integral input tensors, argument alpha must not be a floating point "
                        "number (got alpha=%s with result dtype %s)",
                        format_scalar(alpha).text, to_string(common));
  return true;
}

Scalar negated(const Scalar& value) {
  if (value.isFloatingPoint()) return Scalar(-value.toDouble());
  // Wraps like ATen for the most negative int64.
  return Scalar(static_cast<int64_t>(0 - static_cast<uint64_t>(value.toInt())));
}

// The shared body once `other` is an input, the common dtype is known and out is resized.
Tensor& add_sub(KernelRuntimeContext& ctx, const Tensor& self, const ElementwiseInput& other,
                ScalarType common, const Scalar& alpha, bool subtract, Tensor& out) {
  if (!check_alpha(ctx, alpha, common)) return out;
  const Scalar effective = subtract ? negated(alpha) : alpha;
  // A bool result takes alpha as a truth value, so only other dtypes check for overflow.
  KILN_KERNEL_CHECK_MSG(ctx, common == ScalarType::Bool || scalar_fits(effective, common),
                        InvalidArgument, out,
                        "value cannot be converted to type %s without overflow: alpha=%s; pass "
                        "an alpha within the range of the result dtype",
                        to_string(common), format_scalar(alpha).text);
  apply_binary_op(ElementwiseInput::of(self), other, common, out, [&](auto zero) {
    using T = decltype(zero);
    const T scale = scalar_as<T>(effective, common);
    // Integers with alpha == 1 (the usual case) skip the multiply: the compiler unswitches the
    // loops, and integer multiplies cost several instructions without SSE4.1. Floats always
    // multiply (exact for 1): a float ternary whose arms compute would not vectorise.
    const bool unit = std::is_integral_v<T> && scale == T(1);
    return [scale, unit](T a, T b) {
      if constexpr (std::is_integral_v<T>) {
        return unit ? wrapping_add(a, b) : wrapping_add(a, wrapping_mul(scale, b));
      } else {
        return a + scale * b;
      }
    };
  });
  return out;
}

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

Tensor& add_sub_scalar(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, bool subtract, Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kExact);
  if (common == ScalarType::Undefined) return out;
  ScalarStorage storage;
  return add_sub(ctx, self, scalar_input(other, storage), common, alpha, subtract, out);
}

Tensor& add_sub_tensor(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                       const Scalar& alpha, bool subtract, Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  return add_sub(ctx, self, ElementwiseInput::of(other), common, alpha, subtract, out);
}

}  // namespace

Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  return add_sub_tensor(ctx, self, other, alpha, /*subtract=*/false, out);
}

Tensor& sub_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  if (!check_sub_operands(ctx, self.scalar_type() == ScalarType::Bool,
                          other.scalar_type() == ScalarType::Bool)) {
    return out;
  }
  return add_sub_tensor(ctx, self, other, alpha, /*subtract=*/true, out);
}

Tensor& add_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  return add_sub_scalar(ctx, self, other, alpha, /*subtract=*/false, out);
}

Tensor& sub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  if (!check_sub_operands(ctx, self.scalar_type() == ScalarType::Bool, other.isBoolean())) {
    return out;
  }
  return add_sub_scalar(ctx, self, other, alpha, /*subtract=*/true, out);
}

}  // namespace kiln::portable::native
