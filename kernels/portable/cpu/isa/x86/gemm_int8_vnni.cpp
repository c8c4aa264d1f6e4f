// The int8 gemm on AVX-512 VNNI (see gemm_int8_vnni.h): a register tile of up to 8 out channels
// by two panels (32 pixels); each k group is one load per panel, one broadcast of each
// channel's four weights and one vpdpbusd per accumulator. The epilogue requantizes 16 pixels
// of a channel at a time and stores them as bytes, masked past the last pixel.
#include "kernels/portable/cpu/isa/x86/gemm_int8_vnni.h"

#if defined(KILN_ISA_X86)

#include <immintrin.h>

#include <cstring>

#define KILN_VNNI_LOOP __attribute__((target("arch=x86-64-v4,avx512vnni")))

namespace kiln::portable::isa::x86 {
namespace {

// kChannels channels from `channel`, kPanels panels from `panel`.
template <int kChannels, int kPanels>
KILN_VNNI_LOOP void tile(const Int8GemmArgs& g, int64_t channel, int64_t panel) {
  __m512i sums[kChannels][kPanels];
  for (int r = 0; r < kChannels; ++r) {
    for (int v = 0; v < kPanels; ++v) sums[r][v] = _mm512_setzero_si512();
  }
  const int8_t* w = g.w + channel * g.kpad;
  const int64_t panel_bytes = g.kpad * kInt8PanelWidth;
  const uint8_t* x = g.x + panel * panel_bytes;
  for (int64_t k = 0; k < g.kpad; k += 4) {
    __m512i activations[kPanels];
    for (int v = 0; v < kPanels; ++v) {
      activations[v] = _mm512_loadu_si512(x + v * panel_bytes + k * kInt8PanelWidth);
    }
    for (int r = 0; r < kChannels; ++r) {
      int32_t four;
      std::memcpy(&four, w + r * g.kpad + k, 4);
      const __m512i weights = _mm512_set1_epi32(four);
      for (int v = 0; v < kPanels; ++v) {
        sums[r][v] = _mm512_dpbusd_epi32(sums[r][v], activations[v], weights);
      }
    }
  }
  const __m512 inv = _mm512_set1_ps(g.inv_out_scale);
  const __m512 low = _mm512_set1_ps(g.low);
  const __m512 high = _mm512_set1_ps(g.high);
  const __m512i zero_point = _mm512_set1_epi32(g.out_zero_point);
  for (int v = 0; v < kPanels; ++v) {
    const int64_t first = (panel + v) * kInt8PanelWidth;
    const int64_t lanes = g.pixels - first < kInt8PanelWidth ? g.pixels - first : kInt8PanelWidth;
    const auto mask = static_cast<__mmask16>((1u << lanes) - 1u);
    for (int r = 0; r < kChannels; ++r) {
      const int64_t n = channel + r;
      const __m512i sum = _mm512_add_epi32(sums[r][v], _mm512_set1_epi32(g.correction[n]));
      __m512 y = _mm512_mul_ps(_mm512_cvtepi32_ps(sum), _mm512_set1_ps(g.scale[n]));
      y = _mm512_mul_ps(_mm512_add_ps(y, _mm512_set1_ps(g.bias[n])), inv);
      y = _mm512_min_ps(_mm512_max_ps(y, low), high);
      // MXCSR's default rounding: half to even, as the plain version's rounding.
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(y), zero_point);
      _mm512_mask_cvtepi32_storeu_epi8(g.out + n * g.ldc + first, mask, q);
    }
  }
}

template <int kPanels>
KILN_VNNI_LOOP void channels(const Int8GemmArgs& g, int64_t panel) {
  int64_t n = 0;
  for (; n + 8 <= g.n; n += 8) tile<8, kPanels>(g, n, panel);
  switch (g.n - n) {
    case 7:
      return tile<7, kPanels>(g, n, panel);
    case 6:
      return tile<6, kPanels>(g, n, panel);
    case 5:
      return tile<5, kPanels>(g, n, panel);
    case 4:
      return tile<4, kPanels>(g, n, panel);
    case 3:
      return tile<3, kPanels>(g, n, panel);
    case 2:
      return tile<2, kPanels>(g, n, panel);
    case 1:
      return tile<1, kPanels>(g, n, panel);
    default:
      return;
  }
}

}  // namespace

void int8_gemm_avx512_vnni(const Int8GemmArgs& g, int64_t panel_begin, int64_t panel_end) {
  // Two panels' activations (32 * kpad bytes) stay near while every channel passes over them.
  int64_t panel = panel_begin;
  for (; panel + 2 <= panel_end; panel += 2) channels<2>(g, panel);
  if (panel < panel_end) channels<1>(g, panel);
}

}  // namespace kiln::portable::isa::x86

#endif
