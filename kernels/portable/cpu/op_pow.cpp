// pow.Tensor_Tensor_out, pow.Tensor_Scalar_out and pow.Scalar_out: self raised to exponent.
#include <cmath>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/promotion.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/elementwise/binary_driver.h"
#include "kernels/portable/cpu/util/elementwise/binary_ops.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "kernels/portable/cpu/util/vec/pow.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Integer power by squaring, wrapping like ATen; negative exponents give 1 / base truncated.
template <typename T>
T int_pow(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == T(1)) return T(1);
      if (base == T(-1)) return (exponent & 1) != 0 ? T(-1) : T(1);
      return T(0);
    }
  }
  T result = T(1);
  while (exponent != 0) {
    if ((exponent & 1) != 0) result = wrapping_mul(result, base);
    exponent = static_cast<T>(exponent / 2);
    base = wrapping_mul(base, base);
  }
  return result;
}

// pow on floating values: vectorisable (util/vec/pow.h), so its loops take the AVX-512 clone.
struct FloatingPow {
  static constexpr bool kVectorMath = true;
  KILN_ALWAYS_INLINE float operator()(float base, float exponent) const {
    return pow_float(base, exponent);
  }
  KILN_ALWAYS_INLINE double operator()(double base, double exponent) const {
    return pow_double(base, exponent);
  }
};

// out = 1 in out's dtype (any exponent 0, or a base of 1): one element converted, then copied.
void fill_ones(Tensor& out) {
  alignas(8) unsigned char one[8];
  scalar_to_element(Scalar(int64_t{1}), out.scalar_type(), one);
  fill_elements(out.mutable_data_ptr(), one, out.element_size(), out.numel());
}

Tensor& pow_inputs(KernelRuntimeContext& ctx, const ElementwiseInput& self,
                   const ElementwiseInput& exponent, ScalarType common, Tensor& out) {
  if (common == ScalarType::Bool) {
    fail_dtype(ctx, "pow", common);
    return out;
  }
  apply_binary_op(ctx, self, exponent, common, out, [](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) {
      return [](T a, T b) { return int_pow(a, b); };
    } else {
      return FloatingPow{};
    }
  });
  return out;
}

}  // namespace

Tensor& pow_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& exponent,
                              Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, exponent, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  return pow_inputs(ctx, ElementwiseInput::of(self), ElementwiseInput::of(exponent), common, out);
}

Tensor& pow_tensor_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& exponent,
                              Tensor& out) {
  const bool integral_self =
      is_integral_type(self.scalar_type()) || self.scalar_type() == ScalarType::Bool;
  KILN_KERNEL_CHECK_MSG(ctx, !(integral_self && exponent.isIntegral(true) && exponent.toInt() < 0),
                        InvalidArgument, out,
                        "Integers to negative integer powers are not allowed; convert self to "
                        "a floating dtype first");
  const ScalarType common = prepare_binary(ctx, self, exponent, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  if (out.numel() == 0) return out;
  const double value = exponent.toDouble();
  if (value == 0.0) {
    fill_ones(out);
    return out;
  }
  const ElementwiseInput self_input = ElementwiseInput::of(self);
  if (value == 1.0) {  // a copy, converted through the common dtype
    apply_binary_op(ctx, self_input, self_input, common, out, [](auto zero) {
      using T = decltype(zero);
      return [](T a, T) { return a; };
    });
    return out;
  }
  if (common == ScalarType::Bool) {
    fail_dtype(ctx, "pow", common);
    return out;
  }
  // ATen converts the exponent to the dtype with a range check (Float and Double take it as a
  // double).
  const bool wide = common == ScalarType::Float || common == ScalarType::Double;
  KILN_KERNEL_CHECK_MSG(ctx, wide || scalar_fits(exponent, common), InvalidArgument, out,
                        "value cannot be converted to type %s without overflow: exponent=%s",
                        to_string(common), format_scalar(exponent).text);
  // ATen's Float and Double kernels take the exponent as a double (an odd 2^40 + 3 stays odd);
  // Half, BFloat16 and the integers take it rounded to the dtype.
  if (value == 2.0) {  // the common square: one multiply, in a loop that vectorises
    apply_binary_op(ctx, self_input, self_input, common, out, [](auto zero) {
      using T = decltype(zero);
      return [](T a, T) { return wrapping_mul(a, a); };
    });
    return out;
  }
  const bool bfloat16 = common == ScalarType::BFloat16;
  apply_binary_op(ctx, self_input, self_input, common, out, [&](auto zero) {
    using T = decltype(zero);
    const T e = scalar_as<T>(exponent, common);
    return [e, value, wide, bfloat16](T a, T) -> T {
      if constexpr (std::is_integral_v<T>) {
        return int_pow(a, e);
      } else {
        // BFloat16 squares and cubes multiply in BFloat16, rounding each step, as ATen does.
        const auto round = [bfloat16](T x) {
          if constexpr (std::is_same_v<T, float>) {
            if (bfloat16) return round_reduced(x, /*half=*/false);
          }
          return x;
        };
        // ATen's Float, Double and BFloat16 kernels compute x^0.5 and x^-0.5 as sqrt and rsqrt
        // (NaN for -inf, -0 kept), not as pow.
        if (value == 0.5 && (wide || bfloat16)) return std::sqrt(a);
        if (value == -0.5 && (wide || bfloat16)) return T(1) / std::sqrt(a);
        if (value == 3.0 && (wide || bfloat16)) return round(a * a) * a;
        if (value == -2.0 && (wide || bfloat16)) return T(1) / round(a * a);
        if (wide) return static_cast<T>(std::pow(static_cast<double>(a), value));
        return std::pow(a, e);
      }
    };
  });
  return out;
}

Tensor& pow_scalar_out(KernelRuntimeContext& ctx, const Scalar& self, const Tensor& exponent,
                       Tensor& out) {
  if (!check_tensor(ctx, exponent, "exponent") || !check_tensor(ctx, out, "out")) return out;
  ResultType promotion;
  promotion.add_scalar(self);
  promotion.add_tensor(exponent);
  const ScalarType common = promotion.get();
  if (!resize_or_fail(ctx, out, exponent.sizes())) return out;
  // A numeric base of 1 (not True) fills ones straight into out, whatever its dtype: ATen
  // skips the cast check there.
  if (!self.isBoolean() && self.toDouble() == 1.0) {
    fill_ones(out);
    return out;
  }
  if (!check_out_dtype_castable(ctx, out, common)) return out;
  ScalarStorage storage;
  return pow_inputs(ctx, scalar_input(self, storage), ElementwiseInput::of(exponent), common, out);
}

}  // namespace kiln::portable::native
