// Math functions written so loops over them vectorise (no branches, no library calls).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/util/math.h"
#include "runtime/core/half.h"

namespace kiln::portable {

// `condition ? if_true : if_false` for floating values, as a bit select: with trapping math the
// compiler will not if-convert a float ternary whose arms compute, so loops stay scalar.
template <typename T>
inline T select(bool condition, T if_true, T if_false) {
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  Bits t, f;
  std::memcpy(&t, &if_true, sizeof(T));
  std::memcpy(&f, &if_false, sizeof(T));
  const Bits mask = Bits{0} - static_cast<Bits>(condition);
  const Bits bits = (t & mask) | (f & ~mask);
  T result;
  std::memcpy(&result, &bits, sizeof(T));
  return result;
}

// The larger of a and b, ignoring a NaN `a` (NaN never compares greater).
template <typename T>
inline T max_of(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a > b ? a : b;
  } else {
    return select(a > b, a, b);
  }
}

// e^x in float, within 1.3 ulp of std::exp over the normal range. Results below FLT_MIN flush
// to 0 (std::exp would give a subnormal); overflow gives infinity and NaN stays NaN.
inline float exp_float(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;  // ln 2 split so n * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  constexpr float kLowest = -87.33654f;       // e^kLowest is FLT_MIN
  constexpr float kHighest = 88.72283f;       // e^kHighest is FLT_MAX
  const float clamped = select(x < kLowest, kLowest, select(x > kHighest, kHighest, x));
  // x = n * ln2 + r with |r| <= ln2 / 2, so e^x = 2^n * e^r.
  const float shifted = clamped * kLog2e + kRoundMagic;  // n sits in the low mantissa bits
  const float n = shifted - kRoundMagic;
  const float r = (clamped - n * kLn2Hi) - n * kLn2Lo;
  // Taylor series of e^r to degree 7 (error below 1e-8 on the interval), Horner form.
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n as two factors, since n reaches 128 (just past float's largest exponent) near overflow.
  // Read n from the bits rather than converting (a NaN x makes garbage here, not UB; the
  // result is NaN regardless).
  const int32_t exponent = static_cast<int32_t>(detail::float_bits(shifted)) -
                           static_cast<int32_t>(detail::float_bits(kRoundMagic));
  const int32_t low = exponent >> 1;
  const float scale_low = detail::bits_float(static_cast<uint32_t>(low + 127) << 23);
  const float scale_high = detail::bits_float(static_cast<uint32_t>(exponent - low + 127) << 23);
  float result = p * scale_low * scale_high;
  result = select(x > kHighest, INFINITY, result);
  result = select(x < kLowest, 0.0f, result);
  return select(x != x, x, result);
}

// Sum of n values in independent partial sums (64 bytes of them: enough vector accumulators to
// hide the add latency, few enough for short rows), so the loop vectorises without
// reassociation flags. Integers wrap.
template <typename T>
inline T sum_lanes(const T* values, int64_t n) {
  constexpr int kLanes = 64 / sizeof(T);
  T lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] = wrapping_add(lanes[j], values[i + j]);
  }
  for (; i < n; ++i) lanes[0] = wrapping_add(lanes[0], values[i]);
  T total = T(0);
  for (int j = 0; j < kLanes; ++j) total = wrapping_add(total, lanes[j]);
  return total;
}

// The largest of `start` and n values, ignoring NaN (NaN never compares greater).
template <typename T>
inline T max_lanes(const T* values, int64_t n, T start) {
  constexpr int kLanes = 8;
  T lanes[kLanes];
  for (int j = 0; j < kLanes; ++j) lanes[j] = start;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      lanes[j] = max_of(values[i + j], lanes[j]);
    }
  }
  for (; i < n; ++i) lanes[0] = max_of(values[i], lanes[0]);
  T result = start;
  for (int j = 0; j < kLanes; ++j) result = max_of(lanes[j], result);
  return result;
}

// The compute-type overloads kernels call: float takes the vectorisable version.
inline float exp_compute(float x) { return exp_float(x); }
inline double exp_compute(double x) { return std::exp(x); }

}  // namespace kiln::portable
