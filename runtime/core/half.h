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

// A 16-bit float type: `Convert` supplies the float <-> bits conversions. Half and BFloat16
// differ only in those, so they share one definition.
template <typename Convert>
struct alignas(2) Float16 {
  uint16_t x = 0;

  Float16() = default;
  Float16(float value) : x(Convert::to_bits(value)) {}
  operator float() const { return Convert::to_float(x); }
  static Float16 from_bits(uint16_t bits) {
    Float16 f;
    f.x = bits;
    return f;
  }
};

namespace detail {

// Bit patterns of a 16-bit float type's special values, for std::numeric_limits.
struct Float16Limits {
  uint16_t lowest, max, min, infinity, quiet_nan, epsilon;
};

struct HalfConvert {
  static uint16_t to_bits(float value) { return float_to_half_bits(value); }
  static float to_float(uint16_t bits) { return half_bits_to_float(bits); }
  static constexpr Float16Limits kLimits{0xfbff, 0x7bff, 0x0400, 0x7c00, 0x7e00, 0x1400};
};

struct BFloat16Convert {
  static uint16_t to_bits(float value) { return float_to_bfloat16_bits(value); }
  static float to_float(uint16_t bits) { return bfloat16_bits_to_float(bits); }
  static constexpr Float16Limits kLimits{0xff7f, 0x7f7f, 0x0080, 0x7f80, 0x7fc0, 0x3c00};
};

}  // namespace detail

using Half = Float16<detail::HalfConvert>;
using BFloat16 = Float16<detail::BFloat16Convert>;

}  // namespace kiln

namespace std {

template <typename Convert>
class numeric_limits<kiln::Float16<Convert>> {
  using T = kiln::Float16<Convert>;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static T lowest() { return T::from_bits(Convert::kLimits.lowest); }
  static T max() { return T::from_bits(Convert::kLimits.max); }
  static T min() { return T::from_bits(Convert::kLimits.min); }
  static T infinity() { return T::from_bits(Convert::kLimits.infinity); }
  static T quiet_NaN() { return T::from_bits(Convert::kLimits.quiet_nan); }
  static T epsilon() { return T::from_bits(Convert::kLimits.epsilon); }
};

}  // namespace std
