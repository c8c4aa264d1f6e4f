// Half runs and columns of sum, prod and mean (util/reduce/accumulate.cpp) read in place,
// converted inside the loop with F16C (x86-64-v3) or AVX-512 (x86-64-v4) and combined in the
// plain float loops' lanes and order (util/reduce/run_total.h's run_total, accumulate.cpp's
// column_accumulate), so that they give the bits of the same values as floats. Without these,
// Half rows are widened into a buffer first: GCC does not vectorise the compiler's _Float16
// conversions.
#pragma once

#include "kernels/portable/cpu/isa/x86/half_rows.h"
#include "kernels/portable/cpu/isa/x86/target.h"

#if defined(KILN_ISA_X86)

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/reduce/plan.h"
#include "kernels/portable/cpu/util/reduce/run_total.h"
#include "runtime/core/half.h"

namespace kiln::portable::isa::x86 {

// run_total<float, kProd> of n Half values: each block of kTotalBlock in its 32 float lanes, lane j
// taking elements i + j, the tail into lane 0, the lanes folded by halving into the double total.
// Lanes (isa/x86/half_rows.h) converts 8 (F16C) or 16 (AVX-512) Halves at a time.
template <bool kProd, typename Lanes>
KILN_ALWAYS_INLINE double half_run_total_body(const Half* x, int64_t n) {
  constexpr int kLanes = kTotalLanes<float>;  // run_total<float>'s, so the bits match
  constexpr int kWidth = Lanes::kWidth;
  constexpr int kVectors = kLanes / kWidth;
  typedef float Vector __attribute__((vector_size(kWidth * sizeof(float))));
  double total = kProd ? 1 : 0;
  for (int64_t s = 0; s < n; s += kTotalBlock) {
    const int64_t m = n - s < kTotalBlock ? n - s : kTotalBlock;
    const Half* block = x + s;
    // Vectors of the lanes, kept in registers: as an array of floats GCC split them into scalars.
    Vector vectors[kVectors];
    KILN_UNROLL
    for (int k = 0; k < kVectors; ++k) vectors[k] = Vector{} + (kProd ? 1.0f : 0.0f);
    int64_t i = 0;
    for (; i + kLanes <= m; i += kLanes) {
      KILN_UNROLL
      for (int k = 0; k < kVectors; ++k) {
        Vector values;
        Lanes::widen(block + i + k * kWidth, reinterpret_cast<float*>(&values));
        vectors[k] = kProd ? vectors[k] * values : vectors[k] + values;
      }
    }
    float lanes[kLanes];
    std::memcpy(lanes, vectors, sizeof(lanes));
    for (; i < m; ++i) {
      lanes[0] = combine<kProd>(lanes[0], kiln::detail::half_bits_to_float(block[i].x));
    }
    total = combine<kProd>(total, static_cast<double>(fold_lanes<kProd, kLanes>(lanes)));
  }
  return total;
}

template <bool kProd>
KILN_V3_LOOP double half_run_total_v3(const Half* x, int64_t n) {
  return half_run_total_body<kProd, HalfLanes8>(x, n);
}

template <bool kProd>
KILN_V4_LOOP double half_run_total_v4(const Half* x, int64_t n) {
  return half_run_total_body<kProd, HalfLanes16>(x, n);
}

template <bool kProd>
KILN_V3_LOOP inline __m256 combine_vectors(__m256 a, __m256 b) {
  return kProd ? _mm256_mul_ps(a, b) : _mm256_add_ps(a, b);
}

KILN_V3_LOOP inline __m256 load_halves(const Half* x) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x)));
}

// acc[i] = acc[i] (+ or *) x[i] for `rows` Half rows `stride` elements apart, eight at a time
// with F16C, four rows combined before they meet acc (a last group of fewer filled with
// `identity` rows), as column_accumulate does; a tail element converts exactly as F16C does.
template <bool kProd>
KILN_V3_LOOP void half_column_accumulate_v3(float* acc, const Half* x, int64_t n, int64_t rows,
                                            int64_t stride, const Half* identity) {
  const auto element = [](Half value) { return kiln::detail::half_bits_to_float(value.x); };
  for (int64_t r = 0; r < rows; r += 4) {
    const auto [x0, x1, x2, x3] = four_rows(x, r, rows, stride, identity).row;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const __m256 pair0 = combine_vectors<kProd>(load_halves(x0 + i), load_halves(x1 + i));
      const __m256 pair1 = combine_vectors<kProd>(load_halves(x2 + i), load_halves(x3 + i));
      _mm256_storeu_ps(acc + i, combine_vectors<kProd>(_mm256_loadu_ps(acc + i),
                                                       combine_vectors<kProd>(pair0, pair1)));
    }
    for (; i < n; ++i) {
      const float pair0 = combine<kProd>(element(x0[i]), element(x1[i]));
      const float pair1 = combine<kProd>(element(x2[i]), element(x3[i]));
      acc[i] = combine<kProd>(acc[i], combine<kProd>(pair0, pair1));
    }
  }
}

}  // namespace kiln::portable::isa::x86

#endif
