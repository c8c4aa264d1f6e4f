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

}  // namespace kiln::portable
