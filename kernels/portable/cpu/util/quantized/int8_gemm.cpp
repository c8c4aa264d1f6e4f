// The int8 gemm's plain version and its dispatch (see int8_gemm.h).
#include "kernels/portable/cpu/util/quantized/int8_gemm.h"

#include "kernels/portable/cpu/isa/gemm_int8.h"

namespace kiln::portable {

void int8_gemm_plain(const Int8GemmArgs& g, int64_t panel_begin, int64_t panel_end) {
  for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
    const uint8_t* x = g.x + panel * g.kpad * kInt8PanelWidth;
    const int64_t first = panel * kInt8PanelWidth;
    const int64_t lanes = g.pixels - first < kInt8PanelWidth ? g.pixels - first : kInt8PanelWidth;
    for (int64_t n = 0; n < g.n; ++n) {
      const int8_t* w = g.w + n * g.kpad;
      int32_t sums[kInt8PanelWidth] = {};
      for (int64_t k = 0; k < g.kpad; k += 4) {
        for (int64_t lane = 0; lane < kInt8PanelWidth; ++lane) {
          for (int64_t j = 0; j < 4; ++j) {
            sums[lane] += int32_t{w[k + j]} * int32_t{x[k * kInt8PanelWidth + lane * 4 + j]};
          }
        }
      }
      int8_t* out = g.out + n * g.ldc + first;
      for (int64_t lane = 0; lane < lanes; ++lane) {
        out[lane] = requantize_int8(sums[lane] + g.correction[n], g.scale[n], g.bias[n], g);
      }
    }
  }
}

void int8_gemm(const Int8GemmArgs& g, int64_t panel_begin, int64_t panel_end) {
  if (!isa::int8_gemm_isa(g, panel_begin, panel_end)) int8_gemm_plain(g, panel_begin, panel_end);
}

}  // namespace kiln::portable
