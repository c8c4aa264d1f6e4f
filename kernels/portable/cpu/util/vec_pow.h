// pow(x, y) for floating x and y, written so loops over it vectorise: |x|^y = e^(y log|x|) in
// double, with the C library's special cases (which ATen follows) as bit selects.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/portable/cpu/util/vec_double.h"
#include "kernels/portable/cpu/util/vec_log.h"
#include "kernels/portable/cpu/util/vec_math.h"

namespace kiln::portable {

namespace detail {

// log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1] to the accuracy a float power needs:
// f - f^2 / 2 + f^3 Q(f) with Q of degree 11 (relative error below 4e-12, so that y log|x|
// is off by less than 2^-31 wherever the float result is finite and nonzero).
inline double log1p_reduced_for_float(double f) {
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

// log|x| in double for every x: -inf for 0, +inf for infinities and NaN for NaN. Subnormals are
// scaled into the normal range first, except for kForFloat (a float widened to double is never
// subnormal), which also takes the shorter polynomial.
template <bool kForFloat>
inline double log_abs_double(double x) {
  using K = LogConstants<double>;
  double a = bits_double(double_bits(x) & 0x7fffffffffffffffu);
  double e;
  double log_m;
  if constexpr (kForFloat) {
    log_m = log1p_reduced_for_float(log_split(a, &e));
  } else {
    const bool subnormal = a < 2.2250738585072014e-308;
    log_m = log1p_reduced(log_split(select(subnormal, a * 18014398509481984.0, a), &e));  // 2^54
    e -= select(subnormal, 54.0, 0.0);
  }
  double result = e * K::kLn2Hi + (e * K::kLn2Lo + log_m);
  result = select(a == 0.0, -static_cast<double>(INFINITY), result);
  result = select(a == static_cast<double>(INFINITY), a, result);
  return select(a != a, a, result);
}

// x^y from |x|^y = `magnitude` with pow's special cases: x^0 = 1 and 1^y = 1 even for NaN,
// (-1)^(+-inf) = 1, a negative finite x with a non-integral y gives NaN, and an odd integral y
// keeps x's sign (-0 and -inf included).
inline double pow_signs(double x, double y, double magnitude) {
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

// x^y in double as e^(y log|x|) with pow's special cases: within 1e-13 relative, most of it from
// rounding y log|x| for results far from 1.
inline double pow_double(double x, double y) {
  return detail::pow_signs(x, y, detail::exp_double<false>(y * detail::log_abs_double<false>(x)));
}

// x^y in float, computed in double and rounded once to float (correctly rounded but for rare
// near-halfway cases).
inline float pow_float(float x, float y) {
  const double a = x;
  const double b = y;
  return static_cast<float>(
      detail::pow_signs(a, b, detail::exp_double<true>(b * detail::log_abs_double<true>(a))));
}

}  // namespace kiln::portable
