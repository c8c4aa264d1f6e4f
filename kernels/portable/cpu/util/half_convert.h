// Branch-free Half/BFloat16 <-> float conversions that the compiler can vectorise.
//
// They give the same bits as the Half and BFloat16 constructors in runtime/core/half.h
// (round-to-nearest-even, NaN stays NaN, overflow becomes infinity), written with selects
// instead of branches so loops over rows of them vectorise.
#pragma once

#include <cstdint>
#include <cstring>

namespace kiln::portable {

inline uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float float_of(uint32_t bits) {
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

inline float half_to_float(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t magnitude = static_cast<uint32_t>(half & 0x7fffu) << 13;
  const uint32_t exponent = magnitude & 0x0f800000u;
  // Rebiasing the exponent from 15 to 127 is one add; infinity and NaN need the top exponent.
  const uint32_t normal = magnitude + 0x38000000u;
  const uint32_t special = normal + 0x38000000u;
  // Subnormals are mantissa * 2^-24, which float holds exactly.
  const uint32_t subnormal = bits_of(static_cast<float>(half & 0x3ffu) * 5.9604644775390625e-8f);
  const uint32_t bits =
      select_bits(exponent == 0, subnormal, select_bits(exponent == 0x0f800000u, special, normal));
  return float_of(bits | sign);
}

inline uint16_t float_to_half(float value) {
  const uint32_t bits = bits_of(value);
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
      static_cast<int32_t>(bits_of(float_of(static_cast<uint32_t>(magnitude)) + 0.5f)) - 0x3f000000;
  const uint32_t finite = select_bits(magnitude < 0x38800000, static_cast<uint32_t>(subnormal),
                                      static_cast<uint32_t>(normal));
  const uint32_t half = select_bits(magnitude > 0x7f800000, 0x7e00u, finite);  // NaN
  return static_cast<uint16_t>(half | sign);
}

inline float bfloat16_to_float(uint16_t value) {
  return float_of(static_cast<uint32_t>(value) << 16);
}

inline uint16_t float_to_bfloat16(float value) {
  const uint32_t bits = bits_of(value);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const uint32_t nan = (bits >> 16) | 0x40u;
  return static_cast<uint16_t>((bits & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

}  // namespace kiln::portable
