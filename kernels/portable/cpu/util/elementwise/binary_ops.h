// Argument handling shared by the binary elementwise kernels, and their integer/float math.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "kernels/portable/cpu/util/elementwise/binary_driver.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/core/half.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// What an op accepts as its out dtype: anything the result casts to (structured ATen ops),
// exactly the result dtype (ATen's generated `.Scalar_out` wrappers), or any dtype (comparisons).
enum class OutDtype : uint8_t { kCastable, kExact, kAny };

// How a `.Scalar_out` overload checks out: ATen's generated wrappers want exactly the result
// dtype; the Tensor overloads take any dtype the result casts to.
template <typename Other>
constexpr OutDtype kArithmeticOut =
    std::is_same_v<Other, Scalar> ? OutDtype::kExact : OutDtype::kCastable;

// The dtype an op computes in: its inputs' promoted dtype, or for kToFloat (true division, atan2)
// Float, the default dtype, in place of an integer or Bool one.
enum class Promotion : uint8_t { kCommon, kToFloat };

// Checks self, other and out, computes the dtype the op computes in (`promotion` of the promoted
// dtype), checks out against it under `rule` and resizes out to the broadcast shape. Returns that
// dtype, or Undefined after reporting a failure through ctx.
ScalarType prepare_binary(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                          Tensor& out, OutDtype rule, Promotion promotion = Promotion::kCommon);

// The same for a Scalar `other` (a wrapped number in promotion).
ScalarType prepare_binary(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                          Tensor& out, OutDtype rule, Promotion promotion = Promotion::kCommon);

// Checks that `out` may receive a `result` value under `rule`.
bool check_out_dtype(KernelRuntimeContext& ctx, const Tensor& out, ScalarType result,
                     OutDtype rule);

// ATen's alpha rules for add and sub: bool alpha only for bool results, no fractional alpha for
// integer results. False after ctx.fail.
bool check_alpha(KernelRuntimeContext& ctx, const Scalar& alpha, ScalarType common);

// -value, wrapping like ATen for the most negative int64.
Scalar negated(const Scalar& value);

// ATen's refusal of bool operands of subtraction (sub and rsub); self_bool and other_bool tell
// which operands are bool. False after ctx.fail.
bool check_sub_operands(KernelRuntimeContext& ctx, bool self_bool, bool other_bool);

// Reports ATen's "not implemented for 'Bool'"-style refusal of dtype `common` for op `name`.
void fail_dtype(KernelRuntimeContext& ctx, const char* name, ScalarType common);

// Integer quotient and remainders with ATen's semantics; the divisor is nonzero (kernels check).
// min / -1 wraps instead of trapping.
template <typename T>
inline T div_trunc_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return wrapping_neg(a);
  }
  return static_cast<T>(a / b);
}

template <typename T>
inline T fmod_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}

template <typename T>
inline T div_floor_int(T a, T b) {
  const T quotient = div_trunc_int(a, b);
  const T rest = fmod_int(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (rest != 0 && ((a < 0) != (b < 0))) return static_cast<T>(quotient - 1);
  }
  return quotient;
}

template <typename T>
inline T remainder_int(T a, T b) {
  const T rest = fmod_int(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (rest != 0 && ((rest < 0) != (b < 0))) return static_cast<T>(rest + b);
  }
  return rest;
}

// Floating floor division as ATen computes it (exact where a / b would round up across an
// integer), division by zero giving a / b. `round` rounds each intermediate result: identity
// normally, to Half or BFloat16 where ATen computes in those types step by step.
template <typename T, typename Round>
inline T div_floor_float(T a, T b, const Round& round) {
  if (b == T(0)) return round(a / b);
  const T rest = std::fmod(a, b);
  T quotient = round(round(a - rest) / b);
  if (rest != T(0) && ((b < T(0)) != (rest < T(0)))) quotient = round(quotient - T(1));
  if (quotient == T(0)) return std::copysign(T(0), round(a / b));
  T floored = std::floor(quotient);
  if (round(quotient - floored) > T(0.5)) floored = round(floored + T(1));
  return floored;
}

template <typename T>
inline T div_floor_float(T a, T b) {
  return div_floor_float(a, b, [](T value) { return value; });
}

// Whether div_floor_fast gets a / b wrong: a quotient of 2^24 or more, an infinite or zero
// divisor, and NaN or infinite operands.
inline bool div_floor_fast_fails(float a, float b) {
  const float abs_b = std::fabs(b);
  return !(std::fabs(a) < 16777216.0f * abs_b) || abs_b == INFINITY;
}

// a - trunc(a / b) b, exactly, where div_floor_fast_fails(a, b) is false: computed in double
// without a call. The truncated quotient q (below 2^24) is exact from a double division (a
// quotient of two floats that is not an integer is at least 2^-24 from one, more than the
// division's rounding), q * b has at most 48 bits, and the difference, smaller than b and a
// multiple of b's last bit (or a itself, when q is 0), is a float. Zero comes out as +0.
inline float truncated_rest(float a, float b) {
  const double q = trunc_value(static_cast<double>(a) / static_cast<double>(b));
  return static_cast<float>(static_cast<double>(a) - q * static_cast<double>(b));
}

// div_floor_float(a, b, round) where div_floor_fast_fails(a, b) is false, with the same roundings
// but without a call or a branch: the remainder std::fmod computes is truncated_rest's (its +0
// for std::fmod's -0 changes no result), and a zero quotient takes a / b's sign, which rounding
// keeps.
template <typename Round>
inline float div_floor_fast(float a, float b, const Round& round) {
  const float rest = truncated_rest(a, b);
  float quotient = round(round(a - rest) / b);
  quotient =
      select((rest != 0.0f) & ((b < 0.0f) != (rest < 0.0f)), round(quotient - 1.0f), quotient);
  float floored = floor_value(quotient);
  floored = select(round(quotient - floored) > 0.5f, round(floored + 1.0f), floored);
  return select(quotient == 0.0f, std::copysign(0.0f, a / b), floored);
}

inline float div_floor_fast(float a, float b) {
  return div_floor_fast(a, b, [](float value) { return value; });
}

template <typename T>
inline T remainder_float(T a, T b) {
  T rest = std::fmod(a, b);
  if (rest != T(0) && ((b < T(0)) != (rest < T(0)))) rest += b;
  return rest;
}

// The floating functor of fmod (C's, the sign of a) and, with kRemainder, of remainder (Python's
// %, the sign of b), giving the C library's results. Float vectorises through truncated_rest; the
// inputs div_floor_fast_fails names are rare inputs (vec/rare_inputs.h) that take std::fmod, and
// double calls it throughout. std::fmod is an exact, iterative remainder that no loop vectorises,
// so float keeps it for the blocks that need it.
template <bool kRemainder>
struct ModuloFloating {
  static constexpr bool kHasRareInputs = true;
  static constexpr bool kVectorMath = true;

  float operator()(float a, float b) const {
    // truncated_rest's zero is +0; std::fmod's takes a's sign, as every other result does.
    const float rest = kiln::detail::bits_float(kiln::detail::float_bits(truncated_rest(a, b)) |
                                                detail::sign_bit(a));
    if constexpr (kRemainder) {
      return select((rest != 0.0f) & ((b < 0.0f) != (rest < 0.0f)), rest + b, rest);
    } else {
      return rest;
    }
  }
  double operator()(double a, double b) const { return exact(a, b); }
  bool rare(float a, float b) const { return div_floor_fast_fails(a, b); }
  bool rare(double, double) const { return false; }
  template <typename T>
  T exact(T a, T b) const {
    return kRemainder ? remainder_float(a, b) : std::fmod(a, b);
  }
};

// `value` rounded to Half (half == true) or BFloat16 and widened back to float.
inline float round_reduced(float value, bool half) {
  return half ? kiln::detail::half_bits_to_float(kiln::detail::float_to_half_bits(value))
              : kiln::detail::bfloat16_bits_to_float(kiln::detail::float_to_bfloat16_bits(value));
}

// Wraps an integer functor so a zero divisor sets *zero (and divides by 1 instead).
template <typename T, typename F>
inline auto guard_zero_divisor(bool* zero, F f) {
  return [zero, f](T a, T b) {
    const bool is_zero = b == T(0);
    // Chunks on other threads may flag it too: a relaxed atomic store, never a lost update.
    if (is_zero) __atomic_store_n(zero, true, __ATOMIC_RELAXED);
    return f(a, is_zero ? T(1) : b);
  };
}

}  // namespace kiln::portable
