// Double-precision building blocks written so loops vectorise (bit selects, no library calls):
// bit casts and e^x.
//
// The polynomials are weighted least-squares fits (iterated towards minimax) in relative error;
// their own error is far below double's rounding unless stated.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/vec_math.h"

namespace kiln::portable {

namespace detail {

inline uint64_t double_bits(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits;
}
inline double bits_double(uint64_t bits) {
  double x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}

constexpr double kDoubleRoundMagic = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds

// (e^r - 1 - r) / r^2 for |r| <= ln2 / 2: degree 10 (relative error of e^r below 1e-18), or for
// kForFloat degree 5 (below 7e-11).
template <bool kForFloat>
inline double exp_tail(double r) {
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

// e^t in double: t = n ln2 + r with |r| <= ln2 / 2, e^r = 1 + r + r^2 exp_tail(r), times 2^n as
// two factors so that subnormal results and n = 1024 stay in range. Overflow gives infinity and
// NaN stays NaN. Within about 1 ulp (kForFloat: within 1e-10, for a result rounded to float).
template <bool kForFloat>
inline double exp_double(double t) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 0.6931471805598903;  // 42 bits: n * kLn2Hi is exact
  constexpr double kLn2Lo = 5.497923018708371e-14;
  constexpr double kOverflow = 709.782712893384;  // e^kOverflow is DBL_MAX
  const double c = select(t < -746.0, -746.0, select(t > 710.0, 710.0, t));
  const double shifted = c * kLog2e + kDoubleRoundMagic;
  const double n = shifted - kDoubleRoundMagic;
  const double r = (c - n * kLn2Hi) - n * kLn2Lo;
  const double p = (exp_tail<kForFloat>(r) * r + 1.0) * r + 1.0;
  // n (in [-1077, 1024]) from the low bits of shifted, a NaN giving garbage rather than UB.
  const uint64_t k = double_bits(shifted) - double_bits(kDoubleRoundMagic);
  const uint64_t low = static_cast<uint64_t>(static_cast<int64_t>(k) >> 1);
  const double scale_low = bits_double((low + 1023u) << 52);
  const double scale_high = bits_double((k - low + 1023u) << 52);
  return select(t > kOverflow, static_cast<double>(INFINITY), p * scale_low * scale_high);
}

}  // namespace detail

}  // namespace kiln::portable
