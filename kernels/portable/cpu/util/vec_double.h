// Double-precision building blocks written so loops vectorise (bit selects, no library calls):
// bit casts.
#pragma once

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

}  // namespace detail

}  // namespace kiln::portable
