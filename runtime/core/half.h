// Half (IEEE binary16) and BFloat16 storage types; arithmetic happens in float.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

namespace kiln {
namespace detail {

// Round-to-nearest-even conversions; NaN stays NaN, overflow becomes infinity. Written with
// selects instead of branches so that loops over rows of them vectorise in kernels.

inline uint32_t float_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float bits_float(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// All-ones when `condition` holds, else zero. Selecting with masks keeps the float arithmetic of
// both arms unconditional, so the compiler if-converts and vectorises even with trapping math.
inline uint32_t mask_if(bool condition) { return 0u - static_cast<uint32_t>(condition); }

inline uint32_t select_bits(bool condition, uint32_t if_true, uint32_t if_false) {
  const uint32_t mask = mask_if(condition);
  return (if_true & mask) | (if_false & ~mask);
}

inline float half_bits_to_float(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t magnitude = static_cast<uint32_t>(half & 0x7fffu) << 13;
  const uint32_t exponent = magnitude & 0x0f800000u;
  // Rebiasing the exponent from 15 to 127 is one add; infinity and NaN need the top exponent.
  const uint32_t normal = magnitude + 0x38000000u;
  const uint32_t special = normal + 0x38000000u;
  // Subnormals are mantissa * 2^-24, which float holds exactly.
  const uint32_t subnormal = float_bits(static_cast<float>(half & 0x3ffu) * 5.9604644775390625e-8f);
  const uint32_t bits =
      select_bits(exponent == 0, subnormal, select_bits(exponent == 0x0f800000u, special, normal));
  return bits_float(bits | sign);
}

inline uint16_t float_to_half_bits(float value) {
  const uint32_t bits = float_bits(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const int32_t magnitude = static_cast<int32_t>(bits & 0x7fffffffu);
  // Normal results: rebias, then round to nearest even on the 13 dropped bits; a carry rolls
  // into the exponent, and anything from 65520 up lands on or past infinity (clamped below).
  const int32_t odd = (magnitude >> 13) & 1;
  int32_t normal = (magnitude - 0x38000000 + 0xfff + odd) >> 13;
  normal = normal > 0x7c00 ? 0x7c00 : normal;
  // Subnormal results (below 2^-14): adding 0.5 lines the mantissa up at the bottom bits and
  // the FPU rounds to nearest even.
  const int32_t subnormal =
      static_cast<int32_t>(float_bits(bits_float(static_cast<uint32_t>(magnitude)) + 0.5f)) -
      0x3f000000;
  const uint32_t finite = select_bits(magnitude < 0x38800000, static_cast<uint32_t>(subnormal),
                                      static_cast<uint32_t>(normal));
  const uint32_t half = select_bits(magnitude > 0x7f800000, 0x7e00u, finite);  // NaN
  return static_cast<uint16_t>(half | sign);
}

inline float bfloat16_bits_to_float(uint16_t value) {
  return bits_float(static_cast<uint32_t>(value) << 16);
}

inline uint16_t float_to_bfloat16_bits(float value) {
  const uint32_t bits = float_bits(value);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const uint32_t nan = (bits >> 16) | 0x40u;
  return static_cast<uint16_t>((bits & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

}  // namespace detail

struct alignas(2) Half {
  uint16_t x = 0;

  Half() = default;
  Half(float value) : x(detail::float_to_half_bits(value)) {}
  operator float() const { return detail::half_bits_to_float(x); }
  static Half from_bits(uint16_t bits) {
    Half h;
    h.x = bits;
    return h;
  }
};

struct alignas(2) BFloat16 {
  uint16_t x = 0;

  BFloat16() = default;
  BFloat16(float value) : x(detail::float_to_bfloat16_bits(value)) {}
  operator float() const { return detail::bfloat16_bits_to_float(x); }
  static BFloat16 from_bits(uint16_t bits) {
    BFloat16 b;
    b.x = bits;
    return b;
  }
};

}  // namespace kiln

namespace std {

template <>
class numeric_limits<kiln::Half> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static kiln::Half lowest() { return kiln::Half::from_bits(0xfbff); }
  static kiln::Half max() { return kiln::Half::from_bits(0x7bff); }
  static kiln::Half min() { return kiln::Half::from_bits(0x0400); }
  static kiln::Half infinity() { return kiln::Half::from_bits(0x7c00); }
  static kiln::Half quiet_NaN() { return kiln::Half::from_bits(0x7e00); }
  static kiln::Half epsilon() { return kiln::Half::from_bits(0x1400); }
};

template <>
class numeric_limits<kiln::BFloat16> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static kiln::BFloat16 lowest() { return kiln::BFloat16::from_bits(0xff7f); }
  static kiln::BFloat16 max() { return kiln::BFloat16::from_bits(0x7f7f); }
  static kiln::BFloat16 min() { return kiln::BFloat16::from_bits(0x0080); }
  static kiln::BFloat16 infinity() { return kiln::BFloat16::from_bits(0x7f80); }
  static kiln::BFloat16 quiet_NaN() { return kiln::BFloat16::from_bits(0x7fc0); }
  static kiln::BFloat16 epsilon() { return kiln::BFloat16::from_bits(0x3c00); }
};

}  // namespace std
