// Trigonometric, inverse trigonometric and hyperbolic functions in float, written so loops over
// them vectorise (bit selects instead of branches, no library calls but sqrt), and their
// compute-type overloads (double takes the C library's).
//
// The polynomials are weighted least-squares fits (iterated towards minimax) of each function's
// odd tail in relative error; their own error is far below float's rounding, so the results are
// within about 2 ulp of the correctly rounded value.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/vec/float_math.h"

namespace kiln::portable {

namespace detail {

constexpr float kPiOver2Hi = 1.57079637f;  // pi / 2 rounded to float
constexpr float kPiOver2Lo = -4.37113883e-8f;
constexpr float kLn2 = 0.693147181f;

// x with the sign bit of `sign` xor-ed in (so a negative sign flips x, NaN included).
inline float xor_sign(float x, float sign) {
  return kiln::detail::bits_float(kiln::detail::float_bits(x) ^ sign_bit(sign));
}

// asin(s) for s in [0, 1/2]: s + s^3 P(s^2).
inline float asin_small(float s) {
  const float z = s * s;
  float p = 4.216628631e-02f;
  p = p * z + 2.417952635e-02f;
  p = p * z + 4.547037406e-02f;
  p = p * z + 7.495297651e-02f;
  p = p * z + 1.666675248e-01f;
  return s + s * z * p;
}

// For a = |x| <= 1: sets *q = asin(s) and *big = (a > 1/2), where s = a below 1/2 and
// s = sqrt((1 - a) / 2) above (then asin a = pi/2 - 2 asin s, acos a = 2 asin s). Above 1,
// s and *q are NaN.
inline void asin_reduce(float a, float* q, bool* big) {
  *big = a > 0.5f;
  const float s = select(*big, std::sqrt(0.5f * (1.0f - a)), a);
  *q = asin_small(s);
}

// x = n * pi/2 + r with |r| <= pi/4, for |x| < kTrigReduceLimit: returns r and sets *n_bits to
// a 64-bit pattern whose lowest bits are n's (read them with quadrant_mask). The reduction runs
// in double: pi/2 is split into a 25-bit head, so n * head is exact for |n| < 2^28, and a 53-bit
// tail, as in fdlibm's medium-range reduction; n is rounded with the 1.5 * 2^52 trick.
inline float pi_over_2_reduce(float x, uint64_t* n_bits) {
  constexpr double kTwoOverPi = 0.63661977236758134308;
  constexpr double kHead = 1.57079631090164184570;  // 0x3FF921FB50000000
  constexpr double kTail = 1.58932547735281966916e-08;
  constexpr double kRoundMagic = 6755399441055744.0;  // 1.5 * 2^52
  const double xd = x;
  const double shifted = xd * kTwoOverPi + kRoundMagic;
  const double n = shifted - kRoundMagic;
  std::memcpy(n_bits, &shifted, sizeof(*n_bits));
  return static_cast<float>((xd - n * kHead) - n * kTail);
}

// x = n * pi/2 + r with |r| <= pi/4 (a rounding over), for |x| < kTrigFloatReduceLimit, in
// float: returns r and sets *n_bits to a pattern whose lowest bits are n's. pi/2 is split into
// three 12-bit heads and a tail, so n * head is exact for |n| < 2^12 with or without a fused
// multiply-add, and each subtraction cancels exactly (Cody and Waite).
inline float pi_over_2_reduce_small(float x, uint32_t* n_bits) {
  constexpr float kTwoOverPi = 0.636619772f;
  constexpr float kHead1 = 1.5703125f;
  constexpr float kHead2 = 4.837512969970703125e-4f;
  constexpr float kHead3 = 7.549533620476723e-8f;
  constexpr float kTail = 2.563344151594519e-12f;
  const float shifted = x * kTwoOverPi + kExpRoundMagic;
  const float n = shifted - kExpRoundMagic;
  *n_bits = kiln::detail::float_bits(shifted);
  return (((x - n * kHead1) - n * kHead2) - n * kHead3) - n * kTail;
}

// All ones when bit `bit` of n (from either reduction) is set, else 0. (The mask comes straight
// from the bit pattern: a bool from it would keep GCC from vectorising the mix of float and
// double lanes.)
template <typename Bits>
inline uint32_t quadrant_mask(Bits n_bits, int bit) {
  return 0u - static_cast<uint32_t>((n_bits >> bit) & 1u);
}

// `mask ? a : b` on float bit patterns.
inline float mask_select(uint32_t mask, float a, float b) {
  return kiln::detail::bits_float((kiln::detail::float_bits(a) & mask) |
                                  (kiln::detail::float_bits(b) & ~mask));
}

// x with its sign flipped where `mask` is all ones.
inline float flip_sign(float x, uint32_t mask) {
  return kiln::detail::bits_float(kiln::detail::float_bits(x) ^ (mask & 0x80000000u));
}

// sin r and cos r for |r| <= pi/4, z = r^2: r + r^3 S(z) and 1 - z/2 + z^2 C(z).
inline float sin_reduced(float r, float z) {
  float p = 2.71844124e-06f;
  p = p * z - 1.98393522e-04f;
  p = p * z + 8.33332911e-03f;
  p = p * z - 1.66666672e-01f;
  return r + r * z * p;
}
inline float cos_reduced(float z) {
  float p = -2.72059538e-07f;
  p = p * z + 2.47994631e-05f;
  p = p * z - 1.38888834e-03f;
  p = p * z + 4.16666679e-02f;
  return 1.0f - 0.5f * z + z * z * p;
}

// tan r for |r| <= pi/4, z = r^2: r + r^3 P(z).
inline float tan_reduced(float r, float z) {
  float p = 4.376285857e-03f;
  p = p * z + 8.950296255e-05f;
  p = p * z + 1.083584830e-02f;
  p = p * z + 2.128217007e-02f;
  p = p * z + 5.405992061e-02f;
  p = p * z + 1.333266329e-01f;
  p = p * z + 3.333334976e-01f;
  return r + r * z * p;
}

// sin and cos of x = n * pi/2 + r, from r and n's bits: by quadrant n mod 4, sin is sin r, cos r,
// -sin r, -cos r, and cos is cos r, -sin r, -cos r, sin r.
template <typename Bits>
inline float sin_quadrant(float r, Bits n) {
  const float z = r * r;
  const uint32_t odd = quadrant_mask(n, 0);
  const float value = mask_select(odd, cos_reduced(z), sin_reduced(r, z));
  return flip_sign(value, quadrant_mask(n, 1));
}
template <typename Bits>
inline float cos_quadrant(float r, Bits n) {
  const float z = r * r;
  const uint32_t odd = quadrant_mask(n, 0);
  const float value = mask_select(odd, sin_reduced(r, z), cos_reduced(z));
  return flip_sign(value, odd ^ quadrant_mask(n, 1));
}

// tan of x = n * pi/2 + r: tan r, or -1 / tan r for odd n.
template <typename Bits>
inline float tan_quadrant(float r, Bits n) {
  const float t = tan_reduced(r, r * r);
  return mask_select(quadrant_mask(n, 0), -1.0f / t, t);
}

}  // namespace detail

// Beyond this |x|, the reduction of sin_float, cos_float and tan_float is inexact: their compute
// types take the C library's functions there (util/elementwise/trig_ops.h).
constexpr float kTrigReduceLimit = 4.2e8f;  // about 2^28 * pi / 2
// Below this |x|, sin_small, cos_small and tan_small reduce in float, as accurately as the
// double reduction (within 1.6 ulp measured, every float below 1024); the float reduction stays
// exact up to 2^12 * pi / 2, the margin keeps the error where it is.
constexpr float kTrigFloatReduceLimit = 1024.0f;

// sin in float for |x| < kTrigReduceLimit (NaN gives NaN), reduced in double.
inline float sin_float(float x) {
  uint64_t n;
  const float r = detail::pi_over_2_reduce(x, &n);
  return detail::sin_quadrant(r, n);
}

// sin in float for |x| < kTrigFloatReduceLimit (NaN gives NaN), reduced in float: faster than
// sin_float, as its vectors hold twice the lanes.
inline float sin_small(float x) {
  uint32_t n;
  const float r = detail::pi_over_2_reduce_small(x, &n);
  return detail::sin_quadrant(r, n);
}

// cos in float for |x| < kTrigReduceLimit (NaN gives NaN), reduced in double.
inline float cos_float(float x) {
  uint64_t n;
  const float r = detail::pi_over_2_reduce(x, &n);
  return detail::cos_quadrant(r, n);
}

// cos in float for |x| < kTrigFloatReduceLimit (NaN gives NaN), reduced in float.
inline float cos_small(float x) {
  uint32_t n;
  const float r = detail::pi_over_2_reduce_small(x, &n);
  return detail::cos_quadrant(r, n);
}

// tan in float for |x| < kTrigReduceLimit (NaN gives NaN), reduced in double.
inline float tan_float(float x) {
  uint64_t n;
  const float r = detail::pi_over_2_reduce(x, &n);
  return detail::tan_quadrant(r, n);
}

// tan in float for |x| < kTrigFloatReduceLimit (NaN gives NaN), reduced in float.
inline float tan_small(float x) {
  uint32_t n;
  const float r = detail::pi_over_2_reduce_small(x, &n);
  return detail::tan_quadrant(r, n);
}

// asin in float; |x| > 1 gives NaN.
inline float asin_float(float x) {
  float q;
  bool big;
  detail::asin_reduce(detail::abs_bits(x), &q, &big);
  // pi/2 - 2q with pi/2 in two parts, so the result near 1 keeps its accuracy.
  const float r = select(big, detail::kPiOver2Hi - (2.0f * q - detail::kPiOver2Lo), q);
  return detail::xor_sign(r, x);
}

// acos in float; |x| > 1 gives NaN.
inline float acos_float(float x) {
  float q;
  bool big;
  detail::asin_reduce(detail::abs_bits(x), &q, &big);
  // |x| <= 1/2: pi/2 - asin x. Above: 2 asin s for positive x, pi - 2 asin s for negative x.
  const float signed_q = detail::xor_sign(q, x);
  const float small = detail::kPiOver2Hi - (signed_q - detail::kPiOver2Lo);
  const float positive = 2.0f * q;
  const float negative = 2.0f * detail::kPiOver2Hi - (2.0f * q - 2.0f * detail::kPiOver2Lo);
  return select(big, select(x < 0.0f, negative, positive), small);
}

namespace detail {

// atan(t) for t in [0, 1]: t + t^3 P(t^2).
inline float atan_unit(float t) {
  const float z = t * t;
  float p = 2.920646045e-03f;
  p = p * z - 1.636774392e-02f;
  p = p * z + 4.321156315e-02f;
  p = p * z - 7.552189279e-02f;
  p = p * z + 1.066599305e-01f;
  p = p * z - 1.421105241e-01f;
  p = p * z + 1.999377249e-01f;
  p = p * z - 3.333315272e-01f;
  return t + t * z * p;
}

}  // namespace detail

// atan in float: above 1, atan a = pi/2 - atan(1/a), so the polynomial covers [0, 1].
inline float atan_float(float x) {
  const float a = detail::abs_bits(x);
  const bool big = a > 1.0f;
  const float q = detail::atan_unit(select(big, 1.0f / a, a));
  const float r = select(big, detail::kPiOver2Hi - (q - detail::kPiOver2Lo), q);
  return detail::xor_sign(r, x);
}

// atan2(y, x) in float, with the C library's signed zeros, infinities and NaN: the angle of |y|
// over |x| from atan of the smaller over the larger (so the quotient is in [0, 1]), reflected
// about pi/4 when |y| is the larger, about pi/2 when x is negative (-0 too), and given y's sign.
// Equal magnitudes take the quotient 1 (infinities, whose quotient is NaN), two zeros 0.
inline float atan2_float(float y, float x) {
  const float a = detail::abs_bits(y);
  const float b = detail::abs_bits(x);
  const bool steep = a > b;
  const float high = select(steep, a, b);
  float t = select(steep, b, a) / high;
  t = select(a == b, 1.0f, t);
  t = select(high == 0.0f, 0.0f, t);
  const float q = detail::atan_unit(t);
  float r = select(steep, detail::kPiOver2Hi - (q - detail::kPiOver2Lo), q);
  r = select(detail::sign_bit(x) != 0, 2.0f * detail::kPiOver2Hi - (r - 2.0f * detail::kPiOver2Lo),
             r);
  const float result = kiln::detail::bits_float(kiln::detail::float_bits(r) | detail::sign_bit(y));
  return select((x != x) | (y != y), x + y, result);
}

// sinh in float: (E + E / (E + 1)) / 2 with E = e^|x| - 1, which keeps its accuracy near 0;
// above 88, where e^|x| overflows, (e^(|x|/2) / 2) e^(|x|/2).
inline float sinh_float(float x) {
  const float a = detail::abs_bits(x);
  const bool big = a > 88.0f;
  const float e = detail::expm1_clamped(select(big, 88.0f, a));
  const float h = detail::exp_clamped(0.5f * a);
  const float r = select(big, (0.5f * h) * h, 0.5f * (e + e / (e + 1.0f)));
  return select(x != x, x, detail::xor_sign(r, x));
}

// cosh in float: (e^|x| + e^-|x|) / 2, and (e^(|x|/2) / 2) e^(|x|/2) above 88.
inline float cosh_float(float x) {
  const float a = detail::abs_bits(x);
  const bool big = a > 88.0f;
  const float e = detail::exp_clamped(select(big, 88.0f, a));
  const float h = detail::exp_clamped(0.5f * a);
  const float r = select(big, (0.5f * h) * h, 0.5f * e + 0.5f / e);
  return select(x != x, x, r);
}

// asinh in float: log1p(a + a^2 / (1 + sqrt(1 + a^2))) for a = |x|, which is log(a + sqrt(a^2 +
// 1)) without cancellation near 0; above 2^28, log(2a) = log1p(a) + log 2.
inline float asinh_float(float x) {
  const float a = detail::abs_bits(x);
  const bool big = a > 268435456.0f;
  const float a2 = a * a;
  const float y = a + a2 / (1.0f + std::sqrt(1.0f + a2));
  const float r = log1p_float(select(big, a, y)) + select(big, detail::kLn2, 0.0f);
  return detail::xor_sign(r, x);
}

// acosh in float: log1p(t + sqrt(t (t + 2))) with t = x - 1 (exact below 2^24), which is
// log(x + sqrt(x^2 - 1)) without cancellation near 1; above 2^28, log(2x). Below 1 it is NaN.
inline float acosh_float(float x) {
  const bool big = x > 268435456.0f;
  const float t = x - 1.0f;
  const float y = t + std::sqrt(t * (t + 2.0f));
  const float r = log1p_float(select(big, x, y)) + select(big, detail::kLn2, 0.0f);
  return select(x < 1.0f, NAN, r);
}

// atanh in float: log1p(2a / (1 - a)) / 2 for a = |x|; +-1 give +-inf, |x| > 1 NaN.
inline float atanh_float(float x) {
  const float a = detail::abs_bits(x);
  const float r = 0.5f * log1p_float(2.0f * a / (1.0f - a));
  return select(a > 1.0f, NAN, detail::xor_sign(r, x));
}

// The compute-type overloads kernels call: float takes the vectorisable version, double the
// C library's.
inline float asin_compute(float x) { return asin_float(x); }
inline double asin_compute(double x) { return std::asin(x); }
inline float acos_compute(float x) { return acos_float(x); }
inline double acos_compute(double x) { return std::acos(x); }
inline float atan_compute(float x) { return atan_float(x); }
inline double atan_compute(double x) { return std::atan(x); }
inline float atan2_compute(float y, float x) { return atan2_float(y, x); }
inline double atan2_compute(double y, double x) { return std::atan2(y, x); }
inline float sinh_compute(float x) { return sinh_float(x); }
inline double sinh_compute(double x) { return std::sinh(x); }
inline float cosh_compute(float x) { return cosh_float(x); }
inline double cosh_compute(double x) { return std::cosh(x); }
inline float asinh_compute(float x) { return asinh_float(x); }
inline double asinh_compute(double x) { return std::asinh(x); }
inline float acosh_compute(float x) { return acosh_float(x); }
inline double acosh_compute(double x) { return std::acosh(x); }
inline float atanh_compute(float x) { return atanh_float(x); }
inline double atanh_compute(double x) { return std::atanh(x); }

}  // namespace kiln::portable
