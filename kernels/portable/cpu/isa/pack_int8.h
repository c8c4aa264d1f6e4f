// The int8 gemm's activation packing (util/quantized/int8_conv.cpp): four rows of 16 int8
// pixels interleaved into one k group of a panel (util/quantized/int8_gemm.h), + 128. SSE2's
// byte and word unpacks on x86-64 (its baseline: no dispatch), a plain loop elsewhere.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/isa/level.h"

#if defined(KILN_ISA_X86)
#include <emmintrin.h>
#endif

namespace kiln::portable::isa {

// to[lane * 4 + j] = rows[j][lane] + 128 (as unsigned bytes) for 16 lanes.
inline void interleave_int8_group(const int8_t* const rows[4], uint8_t* to) {
#if defined(KILN_ISA_X86)
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  __m128i r[4];
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[j])), flip);
  }
  const __m128i ab_low = _mm_unpacklo_epi8(r[0], r[1]);
  const __m128i ab_high = _mm_unpackhi_epi8(r[0], r[1]);
  const __m128i cd_low = _mm_unpacklo_epi8(r[2], r[3]);
  const __m128i cd_high = _mm_unpackhi_epi8(r[2], r[3]);
  auto* out = reinterpret_cast<__m128i*>(to);
  _mm_storeu_si128(out + 0, _mm_unpacklo_epi16(ab_low, cd_low));
  _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(ab_low, cd_low));
  _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(ab_high, cd_high));
  _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(ab_high, cd_high));
#else
  for (int lane = 0; lane < 16; ++lane) {
    for (int j = 0; j < 4; ++j) to[lane * 4 + j] = static_cast<uint8_t>(rows[j][lane] ^ 0x80);
  }
#endif
}

}  // namespace kiln::portable::isa
