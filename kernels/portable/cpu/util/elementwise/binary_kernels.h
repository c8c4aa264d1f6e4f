// Bodies of the binary elementwise kernels that come in families: add/sub, the comparisons and
// logical ops, the bitwise ops, remainder/fmod and maximum/minimum.
//
// Each op file calls one of these templates with its own functor (a generic lambda over the
// element types), so every op instantiates its own loops and compiles under its own operators'
// dtype selection.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "kernels/portable/cpu/util/elementwise/binary_driver.h"
#include "kernels/portable/cpu/util/elementwise/binary_ops.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

namespace detail {

// a + scale * b, wrapping for integers. One branch-free functor: alpha is almost always 1, but a
// test of it inside the loop would keep the loop scalar (the kernels compile without loop
// unswitching), and a second functor for alpha == 1 would double the loops. The multiply
// vectorises at every width.
template <typename T>
struct ScaledAdd {
  static constexpr bool kSignAgnostic = true;
  T scale;
  T operator()(T a, T b) const { return wrapping_add(a, wrapping_mul(scale, b)); }
};

// out = base + scale * scaled with alpha's checks done: the loops add, sub and rsub share,
// whichever overload calls them. The dtype mask parameter keeps instantiations from op files
// with different masks apart.
template <uint64_t kDtypes>
void apply_add_scaled(const KernelRuntimeContext& ctx, const ElementwiseInput& base,
                      const ElementwiseInput& scaled, ScalarType common, const Scalar& scale_value,
                      Tensor& out) {
  apply_binary_op(ctx, base, scaled, common, out, [&](auto zero) {
    using T = decltype(zero);
    return ScaledAdd<T>{scalar_as<T>(scale_value, common)};
  });
}

}  // namespace detail

// add and sub (kSubtract): out = self + alpha * other, or self - alpha * other; rsub
// (kReversed): out = other - alpha * self.
template <bool kSubtract, bool kReversed = false, uint64_t kDtypes = KILN_SELECTED_DTYPES,
          typename Other>
Tensor& add_sub_out(KernelRuntimeContext& ctx, const Tensor& self, const Other& other,
                    const Scalar& alpha, Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, kArithmeticOut<Other>);
  if (common == ScalarType::Undefined) return out;
  if (!check_alpha(ctx, alpha, common)) return out;
  const Scalar effective = kSubtract ? negated(alpha) : alpha;
  // A bool result takes alpha as a truth value, so only other dtypes check for overflow.
  KILN_KERNEL_CHECK_MSG(ctx, common == ScalarType::Bool || scalar_fits(effective, common),
                        InvalidArgument, out,
                        "value cannot be converted to type %s without overflow: alpha=%s; pass "
                        "an alpha within the range of the result dtype",
                        to_string(common), format_scalar(alpha).text);
  ScalarStorage storage;
  const ElementwiseInput scaled = kReversed ? ElementwiseInput::of(self) : input_of(other, storage);
  const ElementwiseInput base = kReversed ? input_of(other, storage) : ElementwiseInput::of(self);
  detail::apply_add_scaled<kDtypes>(ctx, base, scaled, common, effective, out);
  return out;
}

// The comparisons and logical ops (binary_predicate_out).
enum class Predicate : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kAnd, kOr, kXor };

namespace detail {

// One predicate's functor. Gt and Ge have none: they run as Lt and Le with the operands
// swapped, which holds for every value (NaN included) and saves their loops. The dtype mask
// parameter keeps instantiations from op files with different masks apart.
template <Predicate kPredicate, uint64_t kDtypes>
struct PredicateOp {
  template <typename T>
  bool operator()(T a, T b) const {
    if constexpr (kPredicate == Predicate::kEq) {
      return a == b;
    } else if constexpr (kPredicate == Predicate::kNe) {
      return a != b;
    } else if constexpr (kPredicate == Predicate::kLt) {
      return a < b;
    } else if constexpr (kPredicate == Predicate::kLe) {
      return a <= b;
    } else if constexpr (kPredicate == Predicate::kAnd) {
      return (a != T(0)) && (b != T(0));
    } else if constexpr (kPredicate == Predicate::kOr) {
      return (a != T(0)) || (b != T(0));
    } else {
      return (a != T(0)) != (b != T(0));
    }
  }
};

// The factory apply_binary_predicate takes, for the functor Op: a named type rather than a
// lambda, so every op file that computes Op shares one instantiation of the loops.
template <typename Op>
struct MakePredicate {
  template <typename T>
  Op operator()(T) const {
    return Op{};
  }
};

}  // namespace detail

// Comparisons and logical ops: out = kPredicate(self, other) computed in the promoted dtype; out
// is Bool by default and may be of any dtype (it receives 0 or 1). The Tensor and Scalar
// overloads, gt and lt, ge and le share their loops.
template <Predicate kPredicate, uint64_t kDtypes = KILN_SELECTED_DTYPES, typename Other>
Tensor& binary_predicate_out(KernelRuntimeContext& ctx, const Tensor& self, const Other& other,
                             Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kAny);
  if (common == ScalarType::Undefined) return out;
  ScalarStorage storage;
  const ElementwiseInput a = ElementwiseInput::of(self);
  const ElementwiseInput b = input_of(other, storage);
  constexpr bool kSwap = kPredicate == Predicate::kGt || kPredicate == Predicate::kGe;
  constexpr Predicate kComputed = kPredicate == Predicate::kGt   ? Predicate::kLt
                                  : kPredicate == Predicate::kGe ? Predicate::kLe
                                                                 : kPredicate;
  using Op = detail::PredicateOp<kComputed, kDtypes>;
  apply_binary_predicate(ctx, kSwap ? b : a, kSwap ? a : b, common, out,
                         detail::MakePredicate<Op>{});
  return out;
}

namespace detail {

// An integer op's functor with the traits its rows use (elementwise/binary_driver.h): kSignAgnostic
// (the same bits for signed and unsigned operands, so Char rows run as Byte rows) and
// kVectorIntegerRows (the integer rows keep the AVX2 clone).
template <typename Op, bool kSignAgnosticBits, bool kVectorIntegers>
struct IntegerOp {
  static constexpr bool kSignAgnostic = kSignAgnosticBits;
  static constexpr bool kVectorIntegerRows = kVectorIntegers;
  Op op;
  template <typename T>
  T operator()(T a, T b) const {
    return op(a, b);
  }
};

// The loops of the bitwise, shift and modulo families below take their inputs as
// ElementwiseInputs, so an op's Tensor and Scalar overloads (given the same functor) share one
// instantiation.
template <typename Op>
void apply_bitwise(const KernelRuntimeContext& ctx, const ElementwiseInput& a,
                   const ElementwiseInput& b, ScalarType common, Tensor& out, const Op& op) {
  apply_binary_op<kIntegralTypes>(ctx, a, b, common, out, [&](auto) {
    return IntegerOp<Op, /*kSignAgnosticBits=*/true, /*kVectorIntegers=*/false>{op};
  });
}

}  // namespace detail

// bitwise_and, bitwise_or and bitwise_xor (called `name`): integers and Bool only. Both
// overloads of an op pass the same functor, so they share its loops.
template <typename Other, typename Op>
Tensor& bitwise_out(KernelRuntimeContext& ctx, const char* name, const Tensor& self,
                    const Other& other, Tensor& out, const Op& op) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  if (is_floating_type(common)) {
    fail_dtype(ctx, name, common);
    return out;
  }
  ScalarStorage storage;
  detail::apply_bitwise(ctx, ElementwiseInput::of(self), input_of(other, storage), common, out, op);
  return out;
}

namespace detail {

// A right shift depends on the sign, so shifts are not sign-agnostic; SSE2 has no per-element
// shift counts, so their rows keep the AVX2 clone.
template <typename Op>
void apply_shift(const KernelRuntimeContext& ctx, const ElementwiseInput& a,
                 const ElementwiseInput& b, ScalarType common, Tensor& out, const Op& op) {
  apply_binary_op<kIntegralTypes>(ctx, a, b, common, out, [&](auto) {
    return IntegerOp<Op, /*kSignAgnosticBits=*/false, /*kVectorIntegers=*/true>{op};
  });
}

}  // namespace detail

// bitwise_left_shift and bitwise_right_shift (called `name`): integers only, no Bool, as in ATen.
// `op` shifts in the promoted dtype's own width (util/elementwise/arithmetic.h's
// shift_left/shift_right); both overloads of an op pass the same one.
template <typename Other, typename Op>
Tensor& shift_out(KernelRuntimeContext& ctx, const char* name, const Tensor& self,
                  const Other& other, Tensor& out, const Op& op) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  if (is_floating_type(common) || common == ScalarType::Bool) {
    fail_dtype(ctx, name, common);
    return out;
  }
  ScalarStorage storage;
  detail::apply_shift(ctx, ElementwiseInput::of(self), input_of(other, storage), common, out, op);
  return out;
}

namespace detail {

// Returns whether an integer divisor was zero. Op is the integer functor; Op::kRemainder picks
// the floating one.
template <typename Op>
bool apply_modulo(const KernelRuntimeContext& ctx, const ElementwiseInput& a,
                  const ElementwiseInput& b, ScalarType common, Tensor& out, const Op& op) {
  bool zero_divisor = false;
  apply_binary_op(ctx, a, b, common, out, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) {
      return guard_zero_divisor<T>(&zero_divisor, op);
    } else {
      return ModuloFloating<Op::kRemainder>{};
    }
  });
  return zero_divisor;
}

}  // namespace detail

// remainder and fmod (called `name`): no Bool, and an integer division by zero is an error. `op`
// is the integer functor; its static kRemainder picks the floating one (ModuloFloating).
template <typename Other, typename Op>
Tensor& modulo_out(KernelRuntimeContext& ctx, const char* name, const Tensor& self,
                   const Other& other, Tensor& out, const Op& op) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  if (common == ScalarType::Bool) {
    fail_dtype(ctx, name, common);
    return out;
  }
  ScalarStorage storage;
  const bool zero_divisor = detail::apply_modulo(ctx, ElementwiseInput::of(self),
                                                 input_of(other, storage), common, out, op);
  KILN_KERNEL_CHECK_MSG(ctx, !zero_divisor, InvalidArgument, out,
                        "ZeroDivisionError: integer %s by zero; check the divisor for zeros or "
                        "compute in a floating dtype",
                        name);
  return out;
}

namespace detail {

// rounding_divide's floating functor. Float floor division vectorises through div_floor_fast, with
// an AVX-512 clone (its double and float divisions set the loop's time, and AVX-512 divides twice
// the lanes at once); its failing inputs and double floor division are rare inputs
// (vec/rare_inputs.h) that take the scalar formula.
struct RoundingDivideFloating {
  static constexpr bool kHasRareInputs = true;
  static constexpr bool kVectorMath = true;
  bool trunc;

  float operator()(float a, float b) const {
    // Both computed and one selected: a branch would keep the loop from vectorising.
    return select(trunc, trunc_value(a / b), div_floor_fast(a, b));
  }
  double operator()(double a, double b) const { return exact(a, b); }
  bool rare(float a, float b) const { return !trunc && div_floor_fast_fails(a, b); }
  bool rare(double, double) const { return !trunc; }
  template <typename T>
  T exact(T a, T b) const {
    return trunc ? std::trunc(a / b) : div_floor_float(a, b);
  }
};

// The same for Half or BFloat16 (`half`) with a tensor divisor, which ATen computes step by step
// in the dtype: every step is rounded to it, branch-free, so the float loop still vectorises
// rather than going one element at a time through the C library.
struct RoundedStepsDivide {
  static constexpr bool kHasRareInputs = true;
  static constexpr bool kVectorMath = true;
  bool trunc;
  bool half;

  // Both roundings computed and one selected (round_reduced's branch kept the loop scalar).
  float round(float value) const {
    using namespace kiln::detail;
    const float as_half = half_bits_to_float(float_to_half_bits(value));
    const float as_bfloat16 = bfloat16_bits_to_float(float_to_bfloat16_bits(value));
    return select(half, as_half, as_bfloat16);
  }
  float operator()(float a, float b) const {
    const auto step = [this](float value) { return round(value); };
    return select(trunc, trunc_value(round(a / b)), div_floor_fast(a, b, step));
  }
  double operator()(double a, double b) const { return RoundingDivideFloating{trunc}(a, b); }
  bool rare(float a, float b) const { return !trunc && div_floor_fast_fails(a, b); }
  bool rare(double, double) const { return !trunc; }
  float exact(float a, float b) const {
    const auto step = [this](float value) { return round(value); };
    return trunc ? std::trunc(round(a / b)) : div_floor_float(a, b, step);
  }
  double exact(double a, double b) const { return RoundingDivideFloating{trunc}.exact(a, b); }
};

}  // namespace detail

// Floor division (or truncating division, `trunc`) of a and b, whose promoted dtype is
// `common`, into out already checked and resized: div's rounding modes and floor_divide (`name`
// in messages). Bool is refused and an integer division by zero is an error, as in ATen. (The
// dtype mask parameter keeps instantiations from op files with different masks apart.)
template <uint64_t kDtypes = KILN_SELECTED_DTYPES>
Tensor& rounding_divide(KernelRuntimeContext& ctx, const char* name, const ElementwiseInput& a,
                        const ElementwiseInput& b, ScalarType common, bool trunc, Tensor& out) {
  if (common == ScalarType::Bool) {
    fail_dtype(ctx, name, common);
    return out;
  }
  // ATen's Half and BFloat16 rounding divisions round each step to the dtype, except with a
  // single-element divisor (read into float as for true division).
  if (is_reduced_floating_type(common) && compute_numel(b.sizes) != 1) {
    const bool half = common == ScalarType::Half;
    apply_binary_op<kFloatingTypes, ScalarOther::kExact>(
        ctx, a, b, common, out, [&](auto) { return detail::RoundedStepsDivide{trunc, half}; });
    return out;
  }
  bool zero_divisor = false;
  apply_binary_op<kAllTypes, ScalarOther::kExact>(ctx, a, b, common, out, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) {
      return guard_zero_divisor<T>(&zero_divisor, [trunc](T x, T y) {
        return trunc ? div_trunc_int(x, y) : div_floor_int(x, y);
      });
    } else {
      return detail::RoundingDivideFloating{trunc};
    }
  });
  KILN_KERNEL_CHECK_MSG(ctx, !zero_divisor, InvalidArgument, out,
                        "ZeroDivisionError: integer division by zero; check the divisor for "
                        "zeros or divide in a floating dtype");
  return out;
}

namespace detail {

// maximum's and minimum's functor: the element for which better(a, b) holds, else b; NaN
// propagates. BFloat16 patterns are compared as integers (elementwise/binary_driver.h's
// PicksBFloat16Bits): the sign and magnitude map to a 16-bit key ordered as the values are, with
// -0.0 equal to 0.0, and a NaN result is 0xffff, the all-ones NaN of ATen's vector loops.
template <typename T, typename Better>
struct ExtremumOp {
  Better better;

  T operator()(T a, T b) const {
    // A NaN `a` is taken; a NaN `b` never loses a comparison, so it stays.
    return better(a, b) || a != a ? a : b;
  }
  uint16_t bfloat16_bits(uint16_t a, uint16_t b) const {
    constexpr uint16_t kMagnitude = 0x7fff;
    constexpr uint16_t kInfinity = 0x7f80;
    const bool nan = (a & kMagnitude) > kInfinity || (b & kMagnitude) > kInfinity;
    return nan ? uint16_t{0xffff} : better(key(a), key(b)) ? a : b;
  }
  static int16_t key(uint16_t x) {
    const auto magnitude = static_cast<int16_t>(x & 0x7fff);
    const auto sign = static_cast<int16_t>(static_cast<int16_t>(x) >> 15);  // 0 or -1
    return static_cast<int16_t>((magnitude ^ sign) - sign);
  }
};

}  // namespace detail

// maximum and minimum: the element for which better(a, b) holds (a > b for maximum); NaN
// propagates.
template <typename Better>
Tensor& extremum_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                     Tensor& out, Better better) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  apply_binary_op(ctx, ElementwiseInput::of(self), ElementwiseInput::of(other), common, out,
                  [&](auto zero) { return detail::ExtremumOp<decltype(zero), Better>{better}; });
  return out;
}

}  // namespace kiln::portable
