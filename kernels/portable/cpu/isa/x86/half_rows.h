// Binary rows of Half elements into a Half out under a cheap float op, converting inline with the
// CPU's Half conversions: F16C's eight lanes (x86-64-v3) or AVX-512's sixteen (x86-64-v4). Widening
// is exact and narrowing rounds to nearest even, as util/vec/convert.h's rows do, so the results
// are those of the plain chunked path (util/elementwise/binary_driver.h's chunked_row), without its
// passes through buffers. Also the Half lanes of the reductions' in-place runs
// (isa/x86/half_totals.h).
#pragma once

#include "kernels/portable/cpu/isa/x86/target.h"

#if defined(KILN_ISA_X86)

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/util/common/target.h"
#include "runtime/core/half.h"

namespace kiln::portable::isa::x86 {

constexpr int kHalfRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// Eight Half values at a time (F16C).
struct HalfLanes8 {
  static constexpr int kWidth = 8;
  KILN_V3_LOOP static void widen(const Half* src, float* dst) {
    _mm256_storeu_ps(dst, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src))));
  }
  KILN_V3_LOOP static void narrow(const float* src, Half* dst) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                     _mm256_cvtps_ph(_mm256_loadu_ps(src), kHalfRound));
  }
};

// Sixteen at a time (AVX-512).
struct HalfLanes16 {
  static constexpr int kWidth = 16;
  KILN_V4_LOOP static void widen(const Half* src, float* dst) {
    // The zero-masked forms: the plain ones pass GCC 12 an undefined vector it warns about.
    _mm512_storeu_ps(dst, _mm512_maskz_cvtph_ps(
                              0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src))));
  }
  KILN_V4_LOOP static void narrow(const float* src, Half* dst) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                        _mm512_maskz_cvtps_ph(0xffff, _mm512_loadu_ps(src), kHalfRound));
  }
};

// out[i] = op(a[i * sa], b[i * sb]) for strides 0 or 1, Lanes::kWidth elements at a time; the
// last few go through a zero-padded block. B is Half, or float for an exact scalar b (sb == 0);
// op is a float op without rare inputs (vec/rare_inputs.h).
template <typename Lanes, typename B, typename Op>
KILN_ALWAYS_INLINE void half_row_body(const Half* a, int64_t sa, const B* b, int64_t sb, Half* out,
                                      int64_t n, const Op& op) {
  constexpr int kW = Lanes::kWidth;
  float x[kW];
  float y[kW];
  float z[kW];
  if (sa == 0) {
    const float value = a[0];
    for (int j = 0; j < kW; ++j) x[j] = value;
  }
  if (sb == 0) {
    const float value = static_cast<float>(b[0]);
    for (int j = 0; j < kW; ++j) y[j] = value;
  }
  for (int64_t i = 0; i < n; i += kW) {
    const int64_t m = n - i < kW ? n - i : kW;
    if (m == kW) {
      if (sa != 0) Lanes::widen(a + i, x);
      if constexpr (std::is_same_v<B, Half>) {
        if (sb != 0) Lanes::widen(b + i, y);
      }
    } else {
      Half block[kW] = {};
      if (sa != 0) {
        std::memcpy(block, a + i, static_cast<size_t>(m) * sizeof(Half));
        Lanes::widen(block, x);
      }
      if constexpr (std::is_same_v<B, Half>) {
        if (sb != 0) {
          std::memcpy(block, b + i, static_cast<size_t>(m) * sizeof(Half));
          Lanes::widen(block, y);
        }
      }
    }
    // A plain loop, which the vectoriser if-converts (an op's selects, as maximum's, unrolled
    // into scalar code, branch on every element).
    for (int j = 0; j < kW; ++j) z[j] = op(x[j], y[j]);
    if (m == kW) {
      Lanes::narrow(z, out + i);
    } else {
      Half block[kW];
      Lanes::narrow(z, block);
      std::memcpy(out + i, block, static_cast<size_t>(m) * sizeof(Half));
    }
  }
}

template <typename B, typename Op>
KILN_V3_LOOP void half_row_v3(const Half* a, int64_t sa, const B* b, int64_t sb, Half* out,
                              int64_t n, const Op& op) {
  half_row_body<HalfLanes8>(a, sa, b, sb, out, n, op);
}

template <typename B, typename Op>
KILN_V4_LOOP void half_row_v4(const Half* a, int64_t sa, const B* b, int64_t sb, Half* out,
                              int64_t n, const Op& op) {
  half_row_body<HalfLanes16>(a, sa, b, sb, out, n, op);
}

}  // namespace kiln::portable::isa::x86

#endif
