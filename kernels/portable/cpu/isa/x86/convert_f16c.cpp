// F16C converts eight values per instruction with the rounding of the current mode, which is
// round to nearest even unless a program changed MXCSR; the immediate pins it.
#include "kernels/portable/cpu/isa/x86/convert_f16c.h"

#include "kernels/portable/cpu/isa/level.h"

#if defined(KILN_ISA_X86)

#include <immintrin.h>

#include <cstring>

#define KILN_F16C_TARGET __attribute__((target("avx2,f16c")))

namespace kiln::portable::isa::x86 {
namespace {

constexpr int kF16cRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// float_to_bfloat16_bits on eight values: rounded to nearest even by adding 0x7fff plus the kept
// part's last bit, a NaN made quiet (its top half is then (x >> 16) | 0x40), selected in 32 bits
// and shifted down, ready to pack.
KILN_F16C_TARGET inline __m256i bfloat16_top_halves(__m256i x) {
  const __m256i rounded =
      _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)),
                       _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1)));
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                         _mm256_set1_epi32(0x7f800000));
  const __m256i quiet = _mm256_or_si256(x, _mm256_set1_epi32(0x400000));
  return _mm256_srli_epi32(_mm256_blendv_epi8(rounded, quiet, nan), 16);
}

}  // namespace

KILN_F16C_TARGET int64_t widen_half_f16c(const Half* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 8));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(lo));
    _mm256_storeu_ps(dst + i + 8, _mm256_cvtph_ps(hi));
  }
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  if (i == n) return n;
  uint16_t block[8] = {};
  float wide[8];
  std::memcpy(block, src + i, static_cast<size_t>(n - i) * sizeof(uint16_t));
  _mm256_storeu_ps(wide, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block))));
  std::memcpy(dst + i, wide, static_cast<size_t>(n - i) * sizeof(float));
  return n;
}

KILN_F16C_TARGET int64_t narrow_half_f16c(const float* src, Half* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i lo = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), kF16cRound);
    const __m128i hi = _mm256_cvtps_ph(_mm256_loadu_ps(src + i + 8), kF16cRound);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), lo);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 8), hi);
  }
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), kF16cRound);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  if (i == n) return n;
  float block[8] = {};
  uint16_t narrow[8];
  std::memcpy(block, src + i, static_cast<size_t>(n - i) * sizeof(float));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(narrow),
                   _mm256_cvtps_ph(_mm256_loadu_ps(block), kF16cRound));
  std::memcpy(dst + i, narrow, static_cast<size_t>(n - i) * sizeof(uint16_t));
  return n;
}

KILN_F16C_TARGET int64_t round_half_f16c(float* values, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(values + i), kF16cRound);
    _mm256_storeu_ps(values + i, _mm256_cvtph_ps(h));
  }
  if (i == n) return n;
  float block[8] = {};
  std::memcpy(block, values + i, static_cast<size_t>(n - i) * sizeof(float));
  const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(block), kF16cRound);
  _mm256_storeu_ps(block, _mm256_cvtph_ps(h));
  std::memcpy(values + i, block, static_cast<size_t>(n - i) * sizeof(float));
  return n;
}

// GCC's vectorisation of the scalar formula narrowed each arm of the NaN select apart and widened
// one back; this takes one instruction per element where that took several (docs/performance.md).
KILN_F16C_TARGET int64_t narrow_bfloat16_avx2(const float* src, BFloat16* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i lo = bfloat16_top_halves(_mm256_castps_si256(_mm256_loadu_ps(src + i)));
    const __m256i hi = bfloat16_top_halves(_mm256_castps_si256(_mm256_loadu_ps(src + i + 8)));
    // packus interleaves the 128-bit lanes of lo and hi; the permute puts them in order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
  return i;
}

}  // namespace kiln::portable::isa::x86

#endif
