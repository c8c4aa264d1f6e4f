// A select that never branches: condition ? a : b through the elements' bits, for loops over a
// mask of bytes (Bool tensors, read as bytes, or where's uint8 condition) and elements of 1, 2, 4
// or 8 bytes. GCC 12 vectorises `c ? a : b` only when the condition and the elements have one
// width, and does not vectorise loads of `bool` widened to a wider type: such loops branched per
// element, which a random mask mispredicts half the time. The mask here has the element's width.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/util/common/target.h"

namespace kiln::portable {

template <typename T>
KILN_ALWAYS_INLINE T select_bits(uint8_t condition, T a, T b) {
  using U = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(U) == sizeof(T), "select_bits selects elements of 1, 2, 4 or 8 bytes");
  U x, y;
  std::memcpy(&x, &a, sizeof(T));
  std::memcpy(&y, &b, sizeof(T));
  const U mask = U(0) - static_cast<U>(condition != 0);
  const U bits = static_cast<U>((x & mask) | (y & ~mask));
  T result;
  std::memcpy(&result, &bits, sizeof(T));
  return result;
}

}  // namespace kiln::portable
