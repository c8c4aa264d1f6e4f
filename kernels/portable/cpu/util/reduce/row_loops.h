// Row loops shared by the reductions (max/min with NaN, exp-and-sum for softmax, log_softmax and
// logsumexp), written with GCC/Clang vector extensions where the auto-vectoriser falls short.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/portable/cpu/isa/row_loops.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/vec/float_math.h"

namespace kiln::portable {

// kBytes of C (by default eight floats or four doubles): a GCC/Clang vector for loops the
// auto-vectoriser handles poorly (selects, NaN tests). Where the target's registers are
// narrower, its arithmetic splits into register-wide pieces but its comparisons compile lane by
// lane (performance.md), so loops that compare are written for each width.
template <typename C, int kBytes = 32>
struct VectorOf {
  typedef C type __attribute__((vector_size(kBytes)));
};
template <typename C, int kBytes = 32>
using Vector = typename VectorOf<C, kBytes>::type;

// Bytes of the vectors the baseline versions of the loops below use: the widest the build
// targets.
#if defined(__AVX__)
constexpr int kBaselineVectorBytes = 32;
#else
constexpr int kBaselineVectorBytes = 16;
#endif

// extreme_nan with vectors of kBytes: four accumulators, and a NaN flag per lane.
template <typename C, bool kMax, int kBytes>
KILN_ALWAYS_INLINE C extreme_nan_lanes(const C* x, int64_t n, C start) {
  using V = Vector<C, kBytes>;
  constexpr int kWidth = kBytes / sizeof(C);
  V best[4];
  for (auto& b : best) b = V{} + start;
  auto nan = best[0] != best[0];  // all false unless start is NaN
  int64_t i = 0;
  for (; i + 4 * kWidth <= n; i += 4 * kWidth) {
    KILN_UNROLL
    for (int k = 0; k < 4; ++k) {
      V v;
      std::memcpy(&v, x + i + k * kWidth, sizeof(v));
      best[k] = kMax ? (v > best[k] ? v : best[k]) : (v < best[k] ? v : best[k]);
      nan |= v != v;
    }
  }
  // The four accumulators folded as vectors first, then one vector's lanes.
  KILN_UNROLL
  for (int k = 1; k < 4; ++k) {
    best[0] =
        kMax ? (best[k] > best[0] ? best[k] : best[0]) : (best[k] < best[0] ? best[k] : best[0]);
  }
  C result = start;
  bool any_nan = false;
  for (int j = 0; j < kWidth; ++j) {
    result = kMax ? (best[0][j] > result ? best[0][j] : result)
                  : (best[0][j] < result ? best[0][j] : result);
    any_nan = any_nan || nan[j] != 0;
  }
  for (; i < n; ++i) {
    result = kMax ? (x[i] > result ? x[i] : result) : (x[i] < result ? x[i] : result);
    any_nan = any_nan || x[i] != x[i];
  }
  return any_nan ? std::numeric_limits<C>::quiet_NaN() : result;
}

// extreme_nan_lanes as the ISA room compiles it for a vector width (isa/row_loops.h).
template <typename C, bool kMax>
struct ExtremeNanLoop {
  template <int kBytes>
  KILN_ALWAYS_INLINE static C run(const C* x, int64_t n, C start) {
    return extreme_nan_lanes<C, kMax, kBytes>(x, n, start);
  }
};

// The largest (kMax) or smallest of `start` and x[0..n) (floating C), NaN winning: NaN if any
// value (or start) is NaN. Not a KILN_HOT_LOOP: GCC compiles a comparison of vectors wider than
// the target's registers lane by lane, so a baseline clone of 32-byte vectors would be scalar
// code. The ISA room's version of 32-byte vectors for x86-64-v3 CPUs and a baseline one of the
// build's own width are picked at run time instead.
template <typename C, bool kMax>
inline C extreme_nan(const C* x, int64_t n, C start) {
  return isa::vector_loop<ExtremeNanLoop<C, kMax>, kBaselineVectorBytes>(x, n, start);
}

// e^x for x <= 0 or NaN (softmax's x - max): vec_math's exp_float without the overflow
// handling this range never needs, so the vector loop is shorter. Same accuracy; results below
// FLT_MIN flush to 0, NaN stays NaN.
KILN_ALWAYS_INLINE float exp_nonpositive(float x) {
  constexpr float kLowest = -87.33654f;                   // e^kLowest is FLT_MIN
  const float clamped = select(x < kLowest, kLowest, x);  // NaN stays NaN (compares false)
  float r, shifted, p;
  detail::exp_reduce(clamped, &r, &shifted);
  detail::exp_polynomial(r, &p);
  // n is in [-126, 0], so 2^n is one normal float built from its exponent bits.
  const float scale = detail::exp_scale(shifted);
  return select(x < kLowest, 0.0f, p * scale);
}

// exp_nonpositive on a vector of floats at once (*y = e^x), written with vector operations so
// the loop around it keeps its accumulators in registers.
template <int kBytes>
KILN_ALWAYS_INLINE void exp_nonpositive_vector(const Vector<float, kBytes>& x,
                                               Vector<float, kBytes>* y) {
  using V = Vector<float, kBytes>;
  using Bits = Vector<uint32_t, kBytes>;
  // No clamp: below kLowest the lane computes garbage (or NaN for -inf), which the final mask
  // replaces by 0; unsigned wrap-around keeps the exponent arithmetic defined.
  const Bits tiny = (Bits)(x < -87.33654f);
  V r, shifted, p;
  detail::exp_reduce(x, &r, &shifted);
  detail::exp_polynomial(r, &p);
  const Bits scale_bits = ((Bits)shifted - (0x4b400000u - 127u)) << 23;
  *y = (V)((Bits)(p * (V)scale_bits) & ~tiny);
}

// exp_sum_lanes for float with vectors of kBytes. Each step takes 64 bytes of x in 64 / kBytes
// vector sums, which fold as the 32-byte version's two do (the first half's lanes plus the
// second half's, then lane by lane), so every width adds in the same order.
template <int kBytes>
KILN_ALWAYS_INLINE float exp_sum_float_lanes(const float* x, float* y, int64_t n, float shift) {
  using V = Vector<float, kBytes>;
  constexpr int kWidth = kBytes / sizeof(float);
  constexpr int kSums = 64 / kBytes;
  V sums[kSums] = {};
  int64_t i = 0;
  for (; i + kSums * kWidth <= n; i += kSums * kWidth) {
    KILN_UNROLL
    for (int k = 0; k < kSums; ++k) {
      V v;
      std::memcpy(&v, x + i + k * kWidth, sizeof(v));
      V e;
      exp_nonpositive_vector<kBytes>(v - shift, &e);
      if (y != nullptr) std::memcpy(y + i + k * kWidth, &e, sizeof(e));
      sums[k] += e;
    }
  }
  float total = 0;
  KILN_UNROLL
  for (int k = 0; k < kSums / 2; ++k) {
    const V folded = sums[k] + sums[k + kSums / 2];
    for (int j = 0; j < kWidth; ++j) total += folded[j];
  }
  for (; i < n; ++i) {
    const float e = exp_nonpositive(x[i] - shift);
    if (y != nullptr) y[i] = e;
    total += e;
  }
  return total;
}

// exp_sum_float_lanes as the ISA room compiles it for a vector width (isa/row_loops.h).
struct ExpSumFloatLoop {
  template <int kBytes>
  KILN_ALWAYS_INLINE static float run(const float* x, float* y, int64_t n, float shift) {
    return exp_sum_float_lanes<kBytes>(x, y, n, shift);
  }
};

// The exp a softmax-style loop uses for x - max: the short one for float.
KILN_ALWAYS_INLINE float exp_shifted(float x) { return exp_nonpositive(x); }
KILN_ALWAYS_INLINE double exp_shifted(double x) { return std::exp(x); }

// y[i] = e^(x[i] - shift) (y may be null: not stored); returns the sum of those values. Float's
// loop compares vectors (the underflow mask), so, like extreme_nan, it is not a KILN_HOT_LOOP
// but the ISA room's x86-64-v3 version and a baseline one picked at run time. Double's exponential
// is libm's, in independent lanes.
template <typename C>
KILN_ALWAYS_INLINE C exp_sum_lanes(const C* x, C* y, int64_t n, C shift) {
  if constexpr (std::is_same_v<C, float>) {
    return isa::vector_loop<ExpSumFloatLoop, kBaselineVectorBytes>(x, y, n, shift);
  }
  constexpr int kLanes = 64 / sizeof(C);
  C lanes[kLanes] = {};
  int64_t i = 0;
  if (y != nullptr) {
    for (; i + kLanes <= n; i += kLanes) {
      KILN_UNROLL
      for (int j = 0; j < kLanes; ++j) {
        const C e = exp_shifted(x[i + j] - shift);
        y[i + j] = e;
        lanes[j] += e;
      }
    }
    for (; i < n; ++i) {
      y[i] = exp_shifted(x[i] - shift);
      lanes[0] += y[i];
    }
  } else {
    for (; i + kLanes <= n; i += kLanes) {
      KILN_UNROLL
      for (int j = 0; j < kLanes; ++j) lanes[j] += exp_shifted(x[i + j] - shift);
    }
    for (; i < n; ++i) lanes[0] += exp_shifted(x[i] - shift);
  }
  C total = 0;
  KILN_UNROLL
  for (int j = 0; j < kLanes; ++j) total += lanes[j];
  return total;
}

}  // namespace kiln::portable
