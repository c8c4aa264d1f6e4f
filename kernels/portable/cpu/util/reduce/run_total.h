// The total (sum or product) of a contiguous run of values, in lanes that keep the loop vectorised
// without reassociation flags: the building block of sum, prod and mean (reduce/accumulate.cpp),
// and Half runs converted inside the loop in the same lanes and order, so they give the bits of
// the same values as floats.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "runtime/core/half.h"

namespace kiln::portable {

// Elements summed in float (or narrow integer) lanes before their total goes to the wide Total.
constexpr int64_t kTotalBlock = 1024;

// Independent lanes a run's block sums in: 128 bytes of them, at most 64.
template <typename Lane>
constexpr int kTotalLanes = 128 / sizeof(Lane) < 64 ? 128 / sizeof(Lane) : 64;

// Floating sums and products run in double, integer ones in wrapping int64.
template <typename C>
using TotalOf = std::conditional_t<std::is_integral_v<C>, int64_t, double>;

template <bool kProd, typename T>
inline T combine(T a, T b) {
  if constexpr (kProd) {
    return wrapping_mul(a, b);
  } else {
    return wrapping_add(a, b);
  }
}

// Combines lanes[0..kN) by halving, so the tail is a short tree rather than a chain. Integer
// lanes halve as vectors of their unsigned type (which wraps): for them GCC turns the scalar loop
// into one lane extraction per lane, which made int8 row sums slow.
template <bool kProd, int kN, typename C>
KILN_ALWAYS_INLINE C fold_lanes(C* lanes) {
  if constexpr (kN == 1) {
    return lanes[0];
  } else if constexpr (std::is_integral_v<C>) {
    typedef std::make_unsigned_t<C> HalfLanes __attribute__((vector_size(kN / 2 * sizeof(C))));
    HalfLanes low, high;
    std::memcpy(&low, lanes, sizeof(HalfLanes));
    std::memcpy(&high, lanes + kN / 2, sizeof(HalfLanes));
    if constexpr (kProd) {
      low *= high;
    } else {
      low += high;
    }
    std::memcpy(lanes, &low, sizeof(HalfLanes));
    return fold_lanes<kProd, kN / 2>(lanes);
  } else {
    KILN_UNROLL
    for (int j = 0; j < kN / 2; ++j) lanes[j] = combine<kProd>(lanes[j], lanes[j + kN / 2]);
    return fold_lanes<kProd, kN / 2>(lanes);
  }
}

// An input element as C: a BFloat16 widened inline (a shift, which the loop vectorises).
template <typename C, typename In>
KILN_ALWAYS_INLINE C element_of(In value) {
  if constexpr (std::is_same_v<In, BFloat16>) {
    return kiln::detail::bfloat16_bits_to_float(value.x);
  } else {
    return value;
  }
}

// What a block of In values totalling C sums in: C, except that 8- and 16-bit integers widened
// into int64 sum in int32 lanes: a block of them cannot overflow int32 (kTotalBlock * 2^16 < 2^31),
// and GCC 12 at -O3 miscompiles the widening of 8-bit values straight to int64 lanes for AVX2
// and AVX-512 (sums come out short). A same-width sum (C is In) keeps In's own lanes.
template <typename C, typename In>
using LaneOf =
    std::conditional_t<std::is_integral_v<In> && sizeof(In) <= 2 && sizeof(In) < sizeof(C), int32_t,
                       C>;

// The total of n contiguous values: blocks in independent lanes (so the loop vectorises without
// reassociation flags and float blocks stay short for accuracy), blocks added in Total. In is C,
// BFloat16 read in place for a float total, or a narrow integer read in place for an int64 sum.
// With an AVX-512 clone too: AVX2 has no 64-bit integer multiply or wide conversions, so the int64
// lanes of int32 and int64 rows gain most from it, and Bool and BFloat16 rows gain as well
// (docs/performance.md).
template <typename C, bool kProd, typename In = C>
KILN_MATH_LOOP TotalOf<C> run_total(const In* x, int64_t n) {
  using Total = TotalOf<C>;
  using Lane = LaneOf<C, In>;
  static_assert(std::is_same_v<Lane, C> || (!kProd && std::is_same_v<C, int64_t>),
                "narrow ints only sum");
  constexpr int kLanes = kTotalLanes<Lane>;
  Total total = kProd ? 1 : 0;
  for (int64_t s = 0; s < n; s += kTotalBlock) {
    const int64_t m = n - s < kTotalBlock ? n - s : kTotalBlock;
    const In* block = x + s;
    Lane lanes[kLanes];
    KILN_UNROLL
    for (int j = 0; j < kLanes; ++j) lanes[j] = kProd ? 1 : 0;
    int64_t i = 0;
    for (; i + kLanes <= m; i += kLanes) {
      KILN_UNROLL
      for (int j = 0; j < kLanes; ++j) {
        lanes[j] = combine<kProd>(lanes[j], element_of<Lane>(block[i + j]));
      }
    }
    for (; i < m; ++i) lanes[0] = combine<kProd>(lanes[0], element_of<Lane>(block[i]));
    // Halving the lanes keeps the tail short (a chain of Total adds would dominate short rows).
    total = combine<kProd>(total, static_cast<Total>(fold_lanes<kProd, kLanes>(lanes)));
  }
  return total;
}

}  // namespace kiln::portable
