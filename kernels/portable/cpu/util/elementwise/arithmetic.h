// Elementwise arithmetic with ATen's semantics: integers wrap (two's complement), floats are IEEE.
#pragma once

#include <type_traits>

namespace kiln::portable {

// Integer math runs in an unsigned type at least as wide as T (and as unsigned int, so narrow
// types do not promote back to signed int) so overflow wraps instead of being undefined
// behaviour; the result is what ATen computes on two's complement hardware.
template <typename T>
using WrapType = std::common_type_t<std::make_unsigned_t<T>, unsigned>;

template <typename T>
inline T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = WrapType<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <typename T>
inline T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = WrapType<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

template <typename T>
inline T wrapping_neg(T a) {
  return wrapping_mul(a, static_cast<T>(-1));
}

// a << b with ATen's semantics: a shift count outside [0, bit width) gives 0. The shift runs
// on the unsigned type, so shifting into the sign bit wraps instead of being undefined. When T
// is the int64 compute type of a narrower dtype, a and b already hold that dtype's values and
// the result is rounded to it afterwards, which gives the narrow shift's result.
template <typename T>
inline T shift_left(T a, T b) {
  constexpr T kBits = static_cast<T>(sizeof(T) * 8);
  bool outside = b >= kBits;
  if constexpr (std::is_signed_v<T>) outside = outside || b < 0;
  using U = std::make_unsigned_t<T>;
  return outside ? T(0) : static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
}

// a >> b with ATen's semantics: arithmetic for signed types, and a count outside [0, bit width)
// shifts every bit out (0, or -1 for a negative signed a).
template <typename T>
inline T shift_right(T a, T b) {
  constexpr T kBits = static_cast<T>(sizeof(T) * 8);
  if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(a >> (b < 0 || b >= kBits ? kBits - 1 : b));
  } else {
    return b >= kBits ? T(0) : static_cast<T>(a >> b);
  }
}

}  // namespace kiln::portable
