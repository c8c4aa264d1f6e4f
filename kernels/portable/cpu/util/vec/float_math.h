// Math functions written so loops over them vectorise (no branches, no library calls).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/util/common/target.h"
#include "runtime/core/half.h"

namespace kiln::portable {

// `condition ? if_true : if_false` for floating values, as a bit select: with trapping math the
// compiler will not if-convert a float ternary whose arms compute, so loops stay scalar.
template <typename T>
inline T select(bool condition, T if_true, T if_false) {
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  Bits t, f;
  std::memcpy(&t, &if_true, sizeof(T));
  std::memcpy(&f, &if_false, sizeof(T));
  const Bits mask = Bits{0} - static_cast<Bits>(condition);
  const Bits bits = (t & mask) | (f & ~mask);
  T result;
  std::memcpy(&result, &bits, sizeof(T));
  return result;
}

// The larger of a and b, ignoring a NaN `a` (NaN never compares greater).
template <typename T>
inline T max_of(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a > b ? a : b;
  } else {
    return select(a > b, a, b);
  }
}

namespace detail {

constexpr float kExpRoundMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer

// The exp building blocks below take F = float or a GCC/Clang vector of floats
// (reduce/row_loops.h's Vector<float>), so scalar and vector loops compute bit-identical values.
// They pass F by reference and return through pointers: a 32-byte vector by value changes the ABI
// without AVX.

// e^c = 2^n * e^r: sets *r (|r| <= ln2 / 2) and leaves n in the low mantissa bits of *shifted
// (read it with exp_exponent). ln 2 is split so that n * kLn2Hi is exact.
template <typename F>
KILN_ALWAYS_INLINE void exp_reduce(const F& c, F* r, F* shifted) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  *shifted = c * kLog2e + kExpRoundMagic;
  const F n = *shifted - kExpRoundMagic;
  *r = (c - n * kLn2Hi) - n * kLn2Lo;
}

// *tail = (e^r - 1 - r) / r^2 for |r| <= ln2 / 2: e^r's Taylor series to degree 7 from its r^2
// term on, in Horner form, so that e^r = 1 + r + r^2 * tail and e^r - 1 = r + r^2 * tail.
template <typename F>
KILN_ALWAYS_INLINE void exp_series_tail(const F& r, F* tail) {
  F p = F{} + 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  *tail = p * r + 0.5f;
}

// *y = e^r for |r| <= ln2 / 2 (error below 1e-8).
template <typename F>
KILN_ALWAYS_INLINE void exp_polynomial(const F& r, F* y) {
  F tail;
  exp_series_tail(r, &tail);
  *y = (tail * r + 1.0f) * r + 1.0f;
}

// n from exp_reduce's shifted value, read from the bits in unsigned arithmetic: a NaN or huge
// input (whose result the caller discards) gives garbage, never signed overflow.
inline int32_t exp_exponent(float shifted) {
  return static_cast<int32_t>(kiln::detail::float_bits(shifted) -
                              kiln::detail::float_bits(kExpRoundMagic));
}

// 2^n for exp_reduce's shifted value when n is a normal float's exponent (garbage, not UB,
// otherwise).
inline float exp_scale(float shifted) {
  return kiln::detail::bits_float(
      (kiln::detail::float_bits(shifted) - kiln::detail::float_bits(kExpRoundMagic) + 127u) << 23);
}

}  // namespace detail

// e^x in float, within 1.3 ulp of std::exp over the normal range. Results below FLT_MIN flush
// to 0 (std::exp would give a subnormal); overflow gives infinity and NaN stays NaN.
inline float exp_float(float x) {
  constexpr float kLowest = -87.33654f;  // e^kLowest is FLT_MIN
  constexpr float kHighest = 88.72283f;  // e^kHighest is FLT_MAX
  const float clamped = select(x < kLowest, kLowest, select(x > kHighest, kHighest, x));
  float r, shifted, p;
  detail::exp_reduce(clamped, &r, &shifted);
  detail::exp_polynomial(r, &p);
  // 2^n as two factors, since n reaches 128 (just past float's largest exponent) near overflow.
  const int32_t exponent = detail::exp_exponent(shifted);
  const int32_t low = exponent >> 1;
  const float scale_low = kiln::detail::bits_float(static_cast<uint32_t>(low + 127) << 23);
  const float scale_high =
      kiln::detail::bits_float(static_cast<uint32_t>(exponent - low + 127) << 23);
  float result = p * scale_low * scale_high;
  result = select(x > kHighest, INFINITY, result);
  result = select(x < kLowest, 0.0f, result);
  return select(x != x, x, result);
}

// floor and ceil from round-half-even (which vectorises with default flags, unlike std::floor):
// exact for every value, keeping -0, infinities and NaN.
template <typename T>
inline T floor_value(T x) {
  const T r = std::nearbyint(x);
  return r - select(r > x, T(1), T(0));
}
template <typename T>
inline T ceil_value(T x) {
  const T r = std::nearbyint(x);
  return r + select(r < x, T(1), T(0));
}

// std::trunc the same way (GCC 12 vectorises std::trunc only without trapping math).
template <typename T>
inline T trunc_value(T x) {
  return select(x < T(0), ceil_value(x), floor_value(x));
}

namespace detail {

// |x| with the sign bit cleared, and x's sign bit alone (bit operations, so loops vectorise).
inline float abs_bits(float x) {
  return kiln::detail::bits_float(kiln::detail::float_bits(x) & 0x7fffffffu);
}
inline uint32_t sign_bit(float x) { return kiln::detail::float_bits(x) & 0x80000000u; }

// e^x - 1 for x already clamped to [-18, 88]: x = n * ln2 + r with |r| <= ln2 / 2, then
// e^x - 1 = 2^n * (e^r - 1) + (2^n - 1), where both terms keep their relative accuracy (so
// tiny x loses nothing to cancellation). Below -18 the float result is -1 anyway.
inline float expm1_clamped(float x) {
  float r, shifted, tail;
  exp_reduce(x, &r, &shifted);
  exp_series_tail(r, &tail);
  // Taylor series of e^r - 1 to degree 7 (relative error below 2e-8 on the interval).
  const float p = tail * r * r + r;
  // n is in [-26, 127] here, so 2^n is one normal float.
  const float scale = exp_scale(shifted);
  return scale * p + (scale - 1.0f);
}

}  // namespace detail

// e^x - 1 in float, within a few ulp of std::expm1 (accurate near 0, unlike exp(x) - 1).
inline float expm1_float(float x) {
  const float clamped = select(x < -18.0f, -18.0f, select(x > 88.0f, 88.0f, x));
  const float result = select(x > 88.0f, exp_float(x), detail::expm1_clamped(clamped));
  return select(x != x, x, result);
}

namespace detail {

// log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1] = [-0.293, 0.415]: f - f^2 / 2 + f^3 Q(f),
// Q a degree-7 least-squares fit in relative error (no division, unlike the atanh series).
inline float log1p_reduced(float f) {
  const float f2 = f * f;
  float q = -0.0736933202f;
  q = q * f + 0.126235574f;
  q = q * f - 0.132010549f;
  q = q * f + 0.142265379f;
  q = q * f - 0.166214257f;
  q = q * f + 0.199998572f;
  q = q * f - 0.250008523f;
  q = q * f + 0.333333522f;
  return f - 0.5f * f2 + f2 * f * q;
}

// x = 2^e * m with m in [sqrt(1/2), sqrt(2)), for finite positive x: sets *e (as a float) and
// *log_m = log m (natural), so that any logarithm of x is e * log(2) + log_m in that base.
inline void log_reduce(float x, float* e, float* log_m) {
  // Subnormals are scaled into the normal range first (2^23 times, undone in the exponent).
  const bool subnormal = x < 1.17549435e-38f;
  const float scaled = select(subnormal, x * 8388608.0f, x);
  const uint32_t bits = kiln::detail::float_bits(scaled);
  const uint32_t mantissa = (bits & 0x007fffffu) | 0x3f800000u;
  const bool high = mantissa > 0x3fb504f3u;  // m > sqrt(2): halve it
  const float m = kiln::detail::bits_float(mantissa - (static_cast<uint32_t>(high) << 23));
  *e = static_cast<float>(static_cast<int32_t>((bits >> 23) & 0xffu) - 127 +
                          static_cast<int32_t>(high) - 23 * static_cast<int32_t>(subnormal));
  *log_m = log1p_reduced(m - 1.0f);  // m - 1 is exact
}

// A logarithm's value at the ends of its domain: +inf for +inf, -inf for 0, NaN below 0 and for
// NaN; `result` (log_reduce's composition) elsewhere.
inline float log_edges(float x, float result) {
  result = select(x == INFINITY, x, result);
  result = select(x == 0.0f, -INFINITY, result);
  return select((x < 0.0f) | (x != x), NAN, result);
}

}  // namespace detail

// Natural log in float, within 1.3 ulp of the exact value over every float (measured); log(0) =
// -inf, negative x gives NaN.
inline float log_float(float x) {
  constexpr float kLn2Hi = 0.693359375f;  // n * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  float n, log_m;
  detail::log_reduce(x, &n, &log_m);
  return detail::log_edges(x, n * kLn2Hi + (n * kLn2Lo + log_m));
}

// log2 in float, within 2.4 ulp of the exact value over every float (exact at powers of two).
inline float log2_float(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  float n, log_m;
  detail::log_reduce(x, &n, &log_m);
  return detail::log_edges(x, n + log_m * kLog2e);
}

// log10 in float, within 2.8 ulp of the exact value over every float.
inline float log10_float(float x) {
  constexpr float kLog10Of2Hi = 0.30102539f;  // n * kLog10Of2Hi is exact (12 bits)
  constexpr float kLog10Of2Lo = 4.6050389e-6f;
  constexpr float kLog10e = 0.434294481903251828f;
  float n, log_m;
  detail::log_reduce(x, &n, &log_m);
  return detail::log_edges(x, n * kLog10Of2Hi + (n * kLog10Of2Lo + log_m * kLog10e));
}

// log(1 + x) in float, accurate for tiny x: with u = 1 + x rounded, log(u) * x / (u - 1)
// corrects for the rounding of u.
inline float log1p_float(float x) {
  const float u = 1.0f + x;
  const float d = u - 1.0f;
  const float corrected = log_float(u) * (x / select(d == 0.0f, 1.0f, d));
  float result = select(d == 0.0f, x, corrected);
  result = select(x == INFINITY, x, result);
  return select(x != x, x, result);
}

// tanh in float, within 3 ulp: tanh|x| = -m / (m + 2) with m = e^(-2|x|) - 1 in (-1, 0], which
// neither overflows nor cancels; the sign is copied back.
inline float tanh_float(float x) {
  const float a = detail::abs_bits(x);
  const float m = detail::expm1_clamped(select(a > 9.0f, -18.0f, -2.0f * a));
  const float t = (0.0f - m) / (m + 2.0f);
  const float result = kiln::detail::bits_float(kiln::detail::float_bits(t) | detail::sign_bit(x));
  return select(x != x, x, result);
}

namespace detail {

// e^x for x clamped to [-87, 88], where 2^n is one normal float: exp_float without its edge
// handling, for callers whose result is insensitive to those ends (NaN still gives NaN).
inline float exp_clamped(float x) {
  const float c = select(x < -87.0f, -87.0f, select(x > 88.0f, 88.0f, x));
  float r, shifted, p;
  exp_reduce(c, &r, &shifted);
  exp_polynomial(r, &p);
  return p * exp_scale(shifted);
}

}  // namespace detail

namespace detail {

// e^c for c whose result is a normal float (c in [-87, 88]), without clamping or edge handling:
// exp_reduce and a degree-6 fit of e^r (relative error 5e-9). NaN gives NaN.
KILN_ALWAYS_INLINE float exp_normal_range(float c) {
  float r, shifted;
  exp_reduce(c, &r, &shifted);
  float h = 0.0013950256106975768f;
  h = h * r + 0.008368902238358272f;
  h = h * r + 0.04166620906199876f;
  h = h * r + 0.16666518692225005f;
  h = h * r + 0.5000000094442238f;
  const float p = (h * r + 1.0f) * r + 1.0f;
  return p * exp_scale(shifted);
}

// e^(-s / 2) for s = x^2 in [0, 174], where the result is a normal float: s / 2 = n ln2 - w / 2
// with |w| <= ln2, and e^(-w / 2) a degree-5 minimax fit (relative error 1.3e-7) evaluated in w
// itself, so that halving s costs no multiply. n * 2 ln2's head is exact and s + n * 2 ln2
// cancels exactly (Sterbenz), as in exp_reduce.
KILN_ALWAYS_INLINE float exp_neg_half(float s) {
  constexpr float kNegHalfLog2e = -0.5f * 1.44269504088896341f;
  const float shifted = s * kNegHalfLog2e + kExpRoundMagic;
  const float n = shifted - kExpRoundMagic;
  float w = s + n * (2.0f * 0.693359375f);
  w = w + n * (2.0f * -2.12194440e-4f);
  float h = -2.5979034e-04f;
  h = h * w + 2.6192980e-03f;
  h = h * w - 2.0834133e-02f;
  h = h * w + 1.2499765e-01f;
  h = h * w - 4.9999990e-01f;
  return (h * w + 1.0f) * exp_scale(shifted);
}

}  // namespace detail

// The logistic function 1 / (1 + e^-x) in float (e^-x clamped: the result is 0 or 1 there).
inline float sigmoid_float(float x) {
  return select(x < -88.0f, 0.0f, 1.0f / (1.0f + detail::exp_clamped(-x)));
}

// x * sigmoid(x) = x / (1 + e^-x) in float; below -88 it is -0 (NaN for -inf), as in ATen.
inline float silu_float(float x) {
  return select(x < -88.0f, x * 0.0f, x / (1.0f + detail::exp_clamped(-x)));
}

// The standard normal CDF Phi(x) = erfc(-x / sqrt(2)) / 2 in float, accurate in relative terms
// on both tails: the lower tail is e^(-x^2 / 2) N(|x|) / D(|x|), with N / D a [4/5] rational
// minimax fit of e^(x^2 / 2) Phi(-|x|) in relative error for |x| in [0, 13.2] (4.9e-9 in double,
// 3.6e-8 with float coefficients); beyond, Phi(-|x|) is below 5e-40 and the tail is 0. D is
// monic, so its first step is an add. N and D are two short independent chains and the one
// division comes last, where a polynomial in 1 / (1 + p |x|) as accurate needs degree 8 in one
// chain after its division, a longer latency that showed in gelu's time.
// The rounding of x^2 (relative error x^2 / 2 * 2^-24 in e^(-x^2 / 2)) dominates for large |x|:
// x Phi(x) is within 6.4e-7 relative for |x| < 4, 4.2e-6 down to -12.5 and 5.4e-6 down to -13.2
// (measured against double erfc).
inline float normal_cdf_float(float x) {
  const float a = detail::abs_bits(x);
  float n = 0.398948044f;  // 1 / sqrt(2 pi), the tail's asymptote, as it should be
  n = n * a + 3.97058368f;
  n = n * a + 18.0135021f;
  n = n * a + 43.3051491f;
  n = n * a + 49.724575f;
  float d = a + 9.95352077f;
  d = d * a + 46.13657f;
  d = d * a + 118.718361f;
  d = d * a + 165.959274f;
  d = d * a + 99.4491501f;
  // Zero past |x| = 13.2, where 2^n would leave the normal floats (so -inf * Phi(-inf) is NaN,
  // as in ATen).
  const float tail = select(a > 13.2f, 0.0f, detail::exp_neg_half(x * x) * n / d);
  return select(x < 0.0f, tail, 1.0f - tail);
}

// erf in float, within 2.5 ulp (2.4 measured, near 0.47). |x| < 1: x * P(x^2); 1 <= |x|: 1 -
// e^(-x^2) * Q(u) with u = 1 / (1 + |x| / 2), where erfc(x) e^(x^2) is smooth (Q is fitted on [1,
// 4]; beyond 3.92 the result rounds to 1). Both polynomials are least-squares fits in relative
// error.
inline float erf_float(float x) {
  const float a = detail::abs_bits(x);
  const float s = a * a;
  float p = 7.933493907e-05f;
  p = p * s - 8.034846396e-04f;
  p = p * s + 5.191218574e-03f;
  p = p * s - 2.685539983e-02f;
  p = p * s + 1.128362566e-01f;
  p = p * s - 3.761262894e-01f;
  p = p * s + 1.128379226e+00f;
  const float small = a * p;
  const float u = 1.0f / (1.0f + 0.5f * a);
  float q = -5.525719747e-02f;
  q = q * u - 5.218898505e-02f;
  q = q * u + 3.974727094e-01f;
  q = q * u + 1.054166555e-01f;
  q = q * u + 3.293379247e-01f;
  q = q * u + 2.739050090e-01f;
  q = q * u + 5.838722573e-04f;
  // Past |x| = 4 the result rounds to 1: x^2 is clamped to 16, where e^-s is a normal float.
  const float large = 1.0f - detail::exp_normal_range(-select(s > 16.0f, 16.0f, s)) * q;
  const float magnitude = select(a < 1.0f, small, large);
  const float result =
      kiln::detail::bits_float(kiln::detail::float_bits(magnitude) | detail::sign_bit(x));
  return select(x != x, x, result);
}

// The compute-type overloads kernels call: float takes the vectorisable version, double the
// C library's (normal_cdf_compute's and erf_compute's doubles are in vec/double_math.h).
inline float exp_compute(float x) { return exp_float(x); }
inline double exp_compute(double x) { return std::exp(x); }
inline float expm1_compute(float x) { return expm1_float(x); }
inline double expm1_compute(double x) { return std::expm1(x); }
inline float log_compute(float x) { return log_float(x); }
inline double log_compute(double x) { return std::log(x); }
inline float tanh_compute(float x) { return tanh_float(x); }
inline double tanh_compute(double x) { return std::tanh(x); }
inline float sigmoid_compute(float x) { return sigmoid_float(x); }
inline double sigmoid_compute(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline float erf_compute(float x) { return erf_float(x); }
inline float silu_compute(float x) { return silu_float(x); }
inline double silu_compute(double x) { return x / (1.0 + std::exp(-x)); }
inline float normal_cdf_compute(float x) { return normal_cdf_float(x); }

}  // namespace kiln::portable
