// The logarithms (log, log2, log10, log1p) as elementwise functors whose float and double loops
// vectorise: a polynomial on the reduced mantissa for every positive normal input, and the
// inputs around it (zero, subnormals, negatives, infinities, NaN) as rare inputs
// (vec/rare_inputs.h) whose blocks take a formula that handles them.
//
// The polynomials are weighted least-squares fits (iterated towards minimax) of log1p's tail in
// relative error; their own error is far below the type's rounding.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/vec/double_math.h"
#include "kernels/portable/cpu/util/vec/float_math.h"

namespace kiln::portable {

namespace detail {

// Whether x is outside the positive normal numbers: zero, subnormal, negative, infinite or NaN
// (one unsigned compare of the bits).
KILN_ALWAYS_INLINE bool outside_positive_normal(float x) {
  return kiln::detail::float_bits(x) - 0x00800000u >= 0x7f000000u;
}
KILN_ALWAYS_INLINE bool outside_positive_normal(double x) {
  return double_bits(x) - 0x0010000000000000u >= 0x7fe0000000000000u;
}

// x = 2^e * m with m in [sqrt(1/2), sqrt(2)), for positive normal x: sets *e and returns
// f = m - 1 (exact). Subtracting sqrt(1/2)'s bits moves the exponent boundary to the mantissa
// sqrt(1/2), so one shift yields e and one mask m.
KILN_ALWAYS_INLINE float log_split(float x, float* e) {
  constexpr uint32_t kSqrtHalf = 0x3f3504f3u;
  const uint32_t shifted = kiln::detail::float_bits(x) - kSqrtHalf;
  *e = static_cast<float>(static_cast<int32_t>(shifted) >> 23);
  return kiln::detail::bits_float((shifted & 0x007fffffu) + kSqrtHalf) - 1.0f;
}
KILN_ALWAYS_INLINE double log_split(double x, double* e) {
  constexpr uint64_t kSqrtHalf = 0x3fe6a09e667f3bcdu;
  const uint64_t shifted = double_bits(x) - kSqrtHalf;
  // e through the bits of 1.5 * 2^52 + e (AVX2 has no vector int64 to double conversion).
  const uint64_t e_bits = static_cast<uint64_t>(static_cast<int64_t>(shifted) >> 52);
  *e = bits_double(double_bits(kDoubleRoundMagic) + e_bits) - kDoubleRoundMagic;
  return bits_double((shifted & 0x000fffffffffffffu) + kSqrtHalf) - 1.0;
}

// log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: float's is in vec/float_math.h; double's is
// f - f^2 / 2 + f^3 Q(f) with Q (log1p_q) of degree 18 (relative error below 1.5e-17 on the
// interval).
KILN_ALWAYS_INLINE double log1p_q(double f) {
  double q = 0.026890372080441777;
  q = q * f - 0.06070374531743512;
  q = q * f + 0.06508359808655338;
  q = q * f - 0.0564679423335324;
  q = q * f + 0.0565994432837963;
  q = q * f - 0.062009905421197005;
  q = q * f + 0.0668631231349363;
  q = q * f - 0.0714914173284495;
  q = q * f + 0.07691363067222336;
  q = q * f - 0.08332923492921421;
  q = q * f + 0.09090932948751212;
  q = q * f - 0.10000015113441629;
  q = q * f + 0.11111110867277363;
  q = q * f - 0.12499999688435605;
  q = q * f + 0.1428571428487222;
  q = q * f - 0.16666666669901636;
  q = q * f + 0.20000000000027737;
  q = q * f - 0.24999999999987546;
  q = q * f + 0.3333333333333325;
  return q;
}
KILN_ALWAYS_INLINE double log1p_reduced(double f) {
  const double f2 = f * f;
  return f - 0.5 * f2 + f2 * f * log1p_q(f);
}

// ln 2 and log10(2) split so that e times the head is exact for every exponent e.
template <typename T>
struct LogConstants;
template <>
struct LogConstants<float> {
  static constexpr float kLn2Hi = 0.693359375f;
  static constexpr float kLn2Lo = -2.12194440e-4f;
  static constexpr float kLog2e = 1.44269504088896341f;
  static constexpr float kLog10Of2Hi = 0.30102539f;
  static constexpr float kLog10Of2Lo = 4.6050389e-6f;
  static constexpr float kLog10e = 0.434294481903251828f;
};
template <>
struct LogConstants<double> {
  static constexpr double kLn2Hi = 0.6931471805598903;  // 42 bits
  static constexpr double kLn2Lo = 5.497923018708371e-14;
  static constexpr double kLog2e = 1.4426950408889634;
  static constexpr double kLog10Of2Hi = 0.30102999566395283;  // 42 bits
  static constexpr double kLog10Of2Lo = 2.8363394551044964e-14;
  static constexpr double kLog10e = 0.4342944819032518;
};

}  // namespace detail

// Natural log, log2 and log10 of a positive normal x (the functors' vector formulas): within
// 1.3, 2.4 and 2.8 ulp for float, 1.6, 2.2 and 2.6 ulp for double (measured).
template <typename T>
KILN_ALWAYS_INLINE T log_normal(T x) {
  using K = detail::LogConstants<T>;
  T e;
  const T log_m = detail::log1p_reduced(detail::log_split(x, &e));
  return e * K::kLn2Hi + (e * K::kLn2Lo + log_m);
}
template <typename T>
KILN_ALWAYS_INLINE T log2_normal(T x) {
  T e;
  const T log_m = detail::log1p_reduced(detail::log_split(x, &e));
  return e + log_m * detail::LogConstants<T>::kLog2e;
}
template <typename T>
KILN_ALWAYS_INLINE T log10_normal(T x) {
  using K = detail::LogConstants<T>;
  T e;
  const T log_m = detail::log1p_reduced(detail::log_split(x, &e));
  return e * K::kLog10Of2Hi + (e * K::kLog10Of2Lo + log_m * K::kLog10e);
}

// log(1 + x) in double where 1 + x is a positive normal number: log(u) for u = 1 + x rounded,
// plus the rounding (x - (u - 1)) / u, which keeps tiny x (and -0) exact.
KILN_ALWAYS_INLINE double log1p_normal(double x) {
  const double u = 1.0 + x;
  const double result = log_normal(u) + (x - (u - 1.0)) / u;
  return select(x == 0.0, x, result);
}

// A logarithm functor: kFloat and kDouble for positive normal arguments, the edge-complete
// kFloatExact and kDoubleExact for blocks holding anything else. kFloatExact is branch-free, so
// such a block still runs as a vector loop (kExactVectorises, elementwise/unary_driver.h).
template <float (*kFloat)(float), double (*kDouble)(double), float (*kFloatExact)(float),
          double (*kDoubleExact)(double)>
struct Logarithm {
  static constexpr bool kHasRareInputs = true;
  static constexpr bool kExactVectorises = true;
  static constexpr bool kVectorMath = true;
  KILN_ALWAYS_INLINE float operator()(float x) const { return kFloat(x); }
  KILN_ALWAYS_INLINE double operator()(double x) const { return kDouble(x); }
  bool rare(float x) const { return detail::outside_positive_normal(x); }
  bool rare(double x) const { return detail::outside_positive_normal(x); }
  float exact(float x) const { return kFloatExact(x); }
  double exact(double x) const { return kDoubleExact(x); }
};

namespace detail {
inline double log_exact(double x) { return std::log(x); }
inline double log2_exact(double x) { return std::log2(x); }
inline double log10_exact(double x) { return std::log10(x); }
}  // namespace detail

using Log = Logarithm<log_normal<float>, log_normal<double>, log_float, detail::log_exact>;
using Log2 = Logarithm<log2_normal<float>, log2_normal<double>, log2_float, detail::log2_exact>;
using Log10 =
    Logarithm<log10_normal<float>, log10_normal<double>, log10_float, detail::log10_exact>;

// log1p: float runs log1p_float (vectorised and edge-complete); double runs log1p_normal where
// 1 + x is a positive normal number and the C library's log1p in blocks holding another input.
struct Log1p {
  static constexpr bool kHasRareInputs = true;
  static constexpr bool kVectorMath = true;
  KILN_ALWAYS_INLINE float operator()(float x) const { return log1p_float(x); }
  KILN_ALWAYS_INLINE double operator()(double x) const { return log1p_normal(x); }
  bool rare(float) const { return false; }
  bool rare(double x) const { return detail::outside_positive_normal(1.0 + x); }
  float exact(float x) const { return log1p_float(x); }
  double exact(double x) const { return std::log1p(x); }
};

}  // namespace kiln::portable
