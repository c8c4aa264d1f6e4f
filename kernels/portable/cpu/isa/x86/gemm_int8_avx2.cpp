// The int8 gemm on AVX2 (see gemm_int8_avx2.h): AVX2 has no byte dot product that cannot
// saturate, so each k group's activations are zero-extended and the weights sign-extended to
// int16, and vpmaddwd sums pairs of products into int32 (two partial sums per pixel, added at
// the end). A register tile is two out channels by one panel (16 pixels, four vectors of four).
#include "kernels/portable/cpu/isa/x86/gemm_int8_avx2.h"

#if defined(KILN_ISA_X86)

#include <immintrin.h>

#include <cstring>

#include "kernels/portable/cpu/isa/x86/target.h"

namespace kiln::portable::isa::x86 {
namespace {

template <int kChannels>
KILN_V3_LOOP void tile(const Int8GemmArgs& g, int64_t channel, int64_t panel) {
  // sums[r][j]: pixels 4j..4j+3 of the panel, two partial sums each.
  __m256i sums[kChannels][4];
  for (int r = 0; r < kChannels; ++r) {
    for (int j = 0; j < 4; ++j) sums[r][j] = _mm256_setzero_si256();
  }
  const int8_t* w = g.w + channel * g.kpad;
  const uint8_t* x = g.x + panel * g.kpad * kInt8PanelWidth;
  for (int64_t k = 0; k < g.kpad; k += 4) {
    __m256i activations[4];
    for (int j = 0; j < 4; ++j) {
      const __m128i bytes =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k * kInt8PanelWidth + j * 16));
      activations[j] = _mm256_cvtepu8_epi16(bytes);
    }
    for (int r = 0; r < kChannels; ++r) {
      int32_t four;
      std::memcpy(&four, w + r * g.kpad + k, 4);
      const __m256i weights = _mm256_cvtepi8_epi16(_mm_set1_epi32(four));
      for (int j = 0; j < 4; ++j) {
        sums[r][j] = _mm256_add_epi32(sums[r][j], _mm256_madd_epi16(activations[j], weights));
      }
    }
  }
  const int64_t first = panel * kInt8PanelWidth;
  const int64_t lanes = g.pixels - first < kInt8PanelWidth ? g.pixels - first : kInt8PanelWidth;
  for (int r = 0; r < kChannels; ++r) {
    // hadd pairs within 128-bit halves: pixels 0 1 4 5 2 3 6 7; the permute puts them in order.
    const __m256i low = _mm256_permute4x64_epi64(_mm256_hadd_epi32(sums[r][0], sums[r][1]), 0xD8);
    const __m256i high = _mm256_permute4x64_epi64(_mm256_hadd_epi32(sums[r][2], sums[r][3]), 0xD8);
    alignas(32) int32_t pixel_sums[kInt8PanelWidth];
    _mm256_store_si256(reinterpret_cast<__m256i*>(pixel_sums), low);
    _mm256_store_si256(reinterpret_cast<__m256i*>(pixel_sums + 8), high);
    const int64_t n = channel + r;
    int8_t* out = g.out + n * g.ldc + first;
    for (int64_t lane = 0; lane < lanes; ++lane) {
      out[lane] = requantize_int8(pixel_sums[lane] + g.correction[n], g.scale[n], g.bias[n], g);
    }
  }
}

}  // namespace

void int8_gemm_avx2(const Int8GemmArgs& g, int64_t panel_begin, int64_t panel_end) {
  for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
    int64_t n = 0;
    for (; n + 2 <= g.n; n += 2) tile<2>(g, n, panel);
    if (n < g.n) tile<1>(g, n, panel);
  }
}

}  // namespace kiln::portable::isa::x86

#endif
