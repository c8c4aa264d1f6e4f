// Half (IEEE binary16) and BFloat16 storage types; arithmetic happens in float.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

namespace kiln {
namespace detail {

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

// Round-to-nearest-even conversion; NaN stays NaN, overflow becomes infinity.
inline uint16_t float_to_half_bits(float value) {
  uint32_t bits = float_bits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  bits &= 0x7fffffffu;
  if (bits >= 0x47800000u) {  // >= 65536, infinity or NaN
    return sign | (bits > 0x7f800000u ? 0x7e00u : 0x7c00u);
  }
  if (bits < 0x38800000u) {  // result is subnormal or zero
    // Adding 0.5f aligns the ten mantissa bits at the bottom; the FPU rounds to nearest even.
    const uint32_t magic = 126u << 23;
    const uint32_t rounded = float_bits(bits_float(bits) + bits_float(magic)) - magic;
    return sign | static_cast<uint16_t>(rounded);
  }
  const uint32_t mantissa_odd = (bits >> 13) & 1u;
  bits += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu + mantissa_odd;
  return sign | static_cast<uint16_t>(bits >> 13);
}

inline float half_bits_to_float(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;  // 2^-24
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) {
    return bits_float(sign | 0x7f800000u | (mantissa << 13));
  }
  return bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline uint16_t float_to_bfloat16_bits(float value) {
  uint32_t bits = float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN, sign kept
  }
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

inline float bfloat16_bits_to_float(uint16_t value) {
  return bits_float(static_cast<uint32_t>(value) << 16);
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
