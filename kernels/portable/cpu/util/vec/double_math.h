// Double-precision building blocks written so loops vectorise (bit selects, no library calls):
// bit casts, e^x, the standard normal CDF and erf.
//
// The polynomials are weighted least-squares fits (iterated towards minimax) in relative error;
// their own error is far below double's rounding unless stated.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/vec/float_math.h"

namespace kiln::portable {

namespace detail {

inline uint64_t double_bits(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits;
}
KILN_ALWAYS_INLINE double bits_double(uint64_t bits) {
  double x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}

constexpr double kDoubleRoundMagic = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds

// (e^r - 1 - r) / r^2 for |r| <= ln2 / 2: degree 10 (relative error of e^r below 1e-18), or for
// kForFloat degree 5 (below 7e-11).
template <bool kForFloat>
KILN_ALWAYS_INLINE double exp_tail(double r) {
  if constexpr (kForFloat) {
    double h = 0.0001991377588162892;
    h = h * r + 0.0013946216057323317;
    h = h * r + 0.008333273084433442;
    h = h * r + 0.04166626728567904;
    h = h * r + 0.1666666682118694;
    return h * r + 0.5000000079069817;
  } else {
    double h = 2.092677852836e-09;
    h = h * r + 2.5112242550175882e-08;
    h = h * r + 2.755723390793092e-07;
    h = h * r + 2.7557234222666042e-06;
    h = h * r + 2.480158737308083e-05;
    h = h * r + 0.00019841269897081487;
    h = h * r + 0.0013888888888858785;
    h = h * r + 0.008333333333316725;
    h = h * r + 0.04166666666666673;
    h = h * r + 0.16666666666666685;
    return h * r + 0.5;
  }
}

// e^(t + tail) in double, `tail` a correction far below t's ulp: t = n ln2 + r with |r| <=
// ln2 / 2 (tail joins r), e^r = 1 + (r + r^2 exp_tail(r)), times 2^n as two factors so that
// subnormal results and n = 1024 stay in range. Overflow gives infinity and NaN stays NaN.
// Within about 1 ulp (kForFloat: within 1e-10, for a result rounded to float).
template <bool kForFloat>
KILN_ALWAYS_INLINE double exp_double(double t, double tail = 0.0) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 0.6931471805598903;  // 42 bits: n * kLn2Hi is exact
  constexpr double kLn2Lo = 5.497923018708371e-14;
  constexpr double kOverflow = 709.782712893384;  // e^kOverflow is DBL_MAX
  const double c = select(t < -746.0, -746.0, select(t > 710.0, 710.0, t));
  const double shifted = c * kLog2e + kDoubleRoundMagic;
  const double n = shifted - kDoubleRoundMagic;
  const double r = ((c - n * kLn2Hi) - n * kLn2Lo) + tail;
  const double p = 1.0 + (r + (r * r) * exp_tail<kForFloat>(r));
  // n (in [-1077, 1024]) from the low bits of shifted, a NaN giving garbage rather than UB.
  const uint64_t k = double_bits(shifted) - double_bits(kDoubleRoundMagic);
  const uint64_t low = static_cast<uint64_t>(static_cast<int64_t>(k) >> 1);
  const double scale_low = bits_double((low + 1023u) << 52);
  const double scale_high = bits_double((k - low + 1023u) << 52);
  return select(t > kOverflow, static_cast<double>(INFINITY), p * scale_low * scale_high);
}

// e^t for t whose result is a normal double (t in [-708, 709]), without exp_double's clamps and
// two-factor scale (the same reduction and polynomial: within about 1 ulp). NaN gives NaN.
KILN_ALWAYS_INLINE double exp_normal_range(double t) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 0.6931471805598903;  // 42 bits: n * kLn2Hi is exact
  constexpr double kLn2Lo = 5.497923018708371e-14;
  const double shifted = t * kLog2e + kDoubleRoundMagic;
  const double n = shifted - kDoubleRoundMagic;
  const double r = (t - n * kLn2Hi) - n * kLn2Lo;
  const double p = 1.0 + (r + (r * r) * exp_tail<false>(r));
  return p * bits_double((double_bits(shifted) - double_bits(kDoubleRoundMagic) + 1023u) << 52);
}

// Phi(x) = erfc(-x / sqrt(2)) / 2 in double, accurate in relative terms on both tails (within a
// few ulp): the lower tail is e^(-x^2 / 2) Q(u) with u = 1 / (1 + |x| / (2 sqrt(2))) and Q, of
// degree 22 in u mapped onto [-1, 1], a fit of erfc(z) e^(z^2) / 2 (z = |x| / sqrt(2)) for z in
// [0, 27]; beyond, e^(-x^2 / 2) is 0. x^2 is split into an exact head (x's top 26 bits squared)
// and the rest, so that e^(-x^2 / 2) does not carry x^2's rounding error times up to 745.
KILN_ALWAYS_INLINE double normal_cdf_double(double x) {
  const double a = bits_double(double_bits(x) & 0x7fffffffffffffffu);
  const double u = 1.0 / (1.0 + 0.35355339059327373 * a);
  const double t = u * 2.1481481481481484 - 1.1481481481481481;
  double q = -8.956983615472071e-10;
  q = q * t - 1.8662842878092987e-10;
  q = q * t + 7.78067311158425e-09;
  q = q * t - 4.284903106938353e-09;
  q = q * t - 2.861772045265276e-08;
  q = q * t + 5.215321010667177e-08;
  q = q * t + 1.570664870772062e-08;
  q = q * t - 2.3974890354197594e-07;
  q = q * t + 4.3339665786606954e-07;
  q = q * t + 3.151961004682894e-07;
  q = q * t - 2.9203530913763823e-06;
  q = q * t + 3.6253365959205924e-06;
  q = q * t + 1.0769250558225304e-05;
  q = q * t - 3.9208294729564445e-05;
  q = q * t - 1.62153679766607e-05;
  q = q * t + 0.00029635593453362056;
  q = q * t - 0.00012112600633139231;
  q = q * t - 0.0025357903111730947;
  q = q * t + 0.00047744766015945606;
  q = q * t + 0.032148906883200636;
  q = q * t + 0.1118559524607338;
  q = q * t + 0.21490558532509157;
  q = q * t + 0.14301606698299216;
  // a = head + rest with head's low 27 bits cleared: head^2 is exact, and e^(-x^2 / 2) is
  // e^(-head^2 / 2) times e^-l for l = (a^2 - head^2) / 2 < 3e-5, a cubic there.
  const double head = bits_double(double_bits(a) & 0xfffffffff8000000u);
  const double rest = a - head;
  const double l = 0.5 * ((head + head + rest) * rest);
  const double e_low = 1.0 - l * (1.0 - l * (0.5 - l * (1.0 / 6.0)));
  const double tail = select(a > 40.0, 0.0, exp_double<false>(-0.5 * (head * head)) * e_low * q);
  return select(x < 0.0, tail, 1.0 - tail);
}

// erf in double, within 2 ulp (1.5 measured): for |x| < 1, x P(x^2) with P of degree 11 a
// least-squares fit of erf(x) / x in relative error (1.6e-17); beyond, 1 - e^(-x^2) Q(t) with
// t = 9.6 / (2 + |x|) - 2.2 (1 / (1 + |x| / 2) mapped onto [-1, 1]) and Q of degree 11 a fit of
// erfc(x) e^(x^2) for |x| in [1, 6] weighted by e^(-x^2), so that the product is within 3.2e-17
// of erfc (past 6, erf rounds to 1). The sign is copied back, so erf(-0) = -0; NaN stays NaN.
KILN_ALWAYS_INLINE double erf_double(double x) {
  const uint64_t sign = double_bits(x) & 0x8000000000000000u;
  const double a = bits_double(double_bits(x) ^ sign);
  const double s = a * a;
  double p = -7.77682913736281e-10;
  p = p * s + 1.3709519207384055e-08;
  p = p * s - 1.6205964194101388e-07;
  p = p * s + 1.6447084274239356e-06;
  p = p * s - 1.4924708324571507e-05;
  p = p * s + 0.00012055293361789941;
  p = p * s - 0.0008548325921832884;
  p = p * s + 0.005223977605955977;
  p = p * s - 0.026866170643090832;
  p = p * s + 0.1128379167094405;
  p = p * s - 0.37612638903183515;
  p = p * s + 1.1283791670955126;
  const double c = select(a > 6.0, 6.0, a);
  const double t = 9.6 / (2.0 + c) - 2.2;
  double q = 7.84640193985635e-10;
  q = q * t + 3.43831738373834e-09;
  q = q * t - 7.450017866626895e-08;
  q = q * t + 1.6598237057314056e-07;
  q = q * t + 1.9791934488653615e-06;
  q = q * t - 7.3408518821005225e-06;
  q = q * t - 8.07920178147562e-05;
  q = q * t + 0.00019713915216674173;
  q = q * t + 0.005588816277257231;
  q = q * t + 0.03856057042658554;
  q = q * t + 0.16189356804096805;
  q = q * t + 0.221429540229928;
  const double large = 1.0 - exp_normal_range(-(c * c)) * q;
  const double magnitude = select(a < 1.0, a * p, large);
  return bits_double(double_bits(magnitude) | sign);
}

}  // namespace detail

KILN_ALWAYS_INLINE double normal_cdf_compute(double x) { return detail::normal_cdf_double(x); }
KILN_ALWAYS_INLINE double erf_compute(double x) { return detail::erf_double(x); }

}  // namespace kiln::portable
