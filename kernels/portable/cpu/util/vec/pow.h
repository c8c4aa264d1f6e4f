// pow(x, y) for floating x and y, written so loops over it vectorise: |x|^y = e^(y log|x|) in
// double, with the C library's special cases (which ATen follows) as bit selects.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/vec/double_math.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "kernels/portable/cpu/util/vec/log.h"

namespace kiln::portable {

namespace detail {

// log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1] to the accuracy a float power needs:
// f - f^2 / 2 + f^3 Q(f) with Q of degree 11 (relative error below 4e-12, so that y log|x|
// is off by less than 2^-31 wherever the float result is finite and nonzero).
KILN_ALWAYS_INLINE double log1p_reduced_for_float(double f) {
  const double f2 = f * f;
  double q = -0.04956519913432606;
  q = q * f + 0.09216581607548682;
  q = q * f - 0.09268913810759079;
  q = q * f + 0.09014187859469812;
  q = q * f - 0.09888903264323091;
  q = q * f + 0.11108007084754916;
  q = q * f - 0.1250587609907585;
  q = q * f + 0.14286064449850075;
  q = q * f - 0.1666652514770951;
  q = q * f + 0.1999999157915227;
  q = q * f - 0.2500000121613975;
  q = q * f + 0.3333333338374416;
  return f - 0.5 * f2 + f2 * f * q;
}

// log|x| for x widened from float: -inf for 0, +inf for infinities and NaN for NaN, with the
// shorter polynomial (a float is never a subnormal double).
KILN_ALWAYS_INLINE double log_abs_for_float(double x) {
  using K = LogConstants<double>;
  const double a = bits_double(double_bits(x) & 0x7fffffffffffffffu);
  double e;
  const double log_m = log1p_reduced_for_float(log_split(a, &e));
  double result = e * K::kLn2Hi + (e * K::kLn2Lo + log_m);
  result = select(a == 0.0, -static_cast<double>(INFINITY), result);
  result = select(a == static_cast<double>(INFINITY), a, result);
  return select(a != a, a, result);
}

// a with its low 27 mantissa bits cleared: the product of two such heads is exact.
KILN_ALWAYS_INLINE double split_head(double a) {
  return bits_double(double_bits(a) & 0xfffffffff8000000u);
}

// y log|x| for double x and y as an unevaluated sum, the returned head plus *tail, to about
// 2^-100 relative: rounding y log|x| to one double would cost up to 709 * 2^-53 in the power.
// log|x| = e ln2 + f - f^2 / 2 + f^3 Q(f) keeps e ln2's head, f and f^2 / 2 exact (f's 26-bit
// head squared) and sums them without losing their rounding errors; the product with y is
// Dekker's, from 26-bit heads. Zero, infinite and NaN x give -inf, +inf and NaN heads.
KILN_ALWAYS_INLINE double pow_exponent_double(double x, double y, double* tail) {
  using K = LogConstants<double>;
  const double a = bits_double(double_bits(x) & 0x7fffffffffffffffu);
  const bool subnormal = a < 2.2250738585072014e-308;
  double e;
  const double f = log_split(select(subnormal, a * 18014398509481984.0, a), &e);  // 2^54
  e -= select(subnormal, 54.0, 0.0);
  const double f_head = split_head(f);
  const double half_square = 0.5 * (f_head * f_head);                   // exact
  const double half_square_rest = 0.5 * ((f + f_head) * (f - f_head));  // f^2 / 2 - half_square
  const double m = f - half_square;                                     // |f| >= f^2 / 2: Fast2Sum
  const double m_error = (f - m) - half_square;
  const double small = f * f * f * log1p_q(f) - half_square_rest + m_error + e * K::kLn2Lo;
  const double log_head = e * K::kLn2Hi;  // exact
  // log_head + m as a two-sum (either may be larger), then with `small` renormalised.
  const double sum = log_head + m;
  const double sum_b = sum - log_head;
  const double sum_error = (log_head - (sum - sum_b)) + (m - sum_b);
  const double low = sum_error + small;
  double l_hi = sum + low;
  const double l_lo = low - (l_hi - sum);
  l_hi = select(a == 0.0, -static_cast<double>(INFINITY), l_hi);
  l_hi = select(a == static_cast<double>(INFINITY), a, l_hi);
  l_hi = select(a != a, a, l_hi);
  const double t = y * l_hi;
  const double y_head = split_head(y);
  const double y_rest = y - y_head;
  const double l_head = split_head(l_hi);
  const double l_rest = l_hi - l_head;
  const double t_error =
      ((y_head * l_head - t) + y_head * l_rest + y_rest * l_head) + y_rest * l_rest;
  // Past |t| = 1000 the power is 0 or infinite anyway; there (and for NaN) the tail is 0.
  *tail = select(std::fabs(t) <= 1000.0, t_error + y * l_lo, 0.0);
  return t;
}

// x^y from |x|^y = `magnitude` with pow's special cases: x^0 = 1 and 1^y = 1 even for NaN,
// (-1)^(+-inf) = 1, a negative finite x with a non-integral y gives NaN, and an odd integral y
// keeps x's sign (-0 and -inf included).
KILN_ALWAYS_INLINE double pow_signs(double x, double y, double magnitude) {
  const double half = 0.5 * y;
  const bool integral = std::nearbyint(y) == y;
  const bool odd = integral & (std::nearbyint(half) != half);
  const bool negative = (double_bits(x) >> 63) != 0;
  const uint64_t flip = static_cast<uint64_t>(negative & odd) << 63;
  double result = bits_double(double_bits(magnitude) ^ flip);
  const bool finite_negative = (x < 0.0) & (x > -static_cast<double>(INFINITY));
  result = select(finite_negative & !integral, static_cast<double>(NAN), result);
  const bool infinite_y = std::fabs(y) == static_cast<double>(INFINITY);
  return select((y == 0.0) | (x == 1.0) | ((x == -1.0) & infinite_y), 1.0, result);
}

}  // namespace detail

// x^y in double as e^(y log|x|) with pow's special cases, within about 2 ulp (1.5 measured):
// y log|x| is carried as a head and a tail, which exp_double adds to its reduced argument.
KILN_ALWAYS_INLINE double pow_double(double x, double y) {
  double tail;
  const double head = detail::pow_exponent_double(x, y, &tail);
  return detail::pow_signs(x, y, detail::exp_double<false>(head, tail));
}

// x^y in float, computed in double and rounded once to float (correctly rounded but for rare
// near-halfway cases).
KILN_ALWAYS_INLINE float pow_float(float x, float y) {
  const double a = x;
  const double b = y;
  return static_cast<float>(
      detail::pow_signs(a, b, detail::exp_double<true>(b * detail::log_abs_for_float(a))));
}

}  // namespace kiln::portable
