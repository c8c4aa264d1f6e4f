// stage_windows and drop_row_padding (window_stage.h).
#include "kernels/ascend/common/window_stage.h"

#include <cstring>

namespace kiln::ascend {

void stage_windows(const WindowGeometry& g, const WindowLayout& w, const uint8_t* input,
                   size_t size, const uint8_t* fill, uint8_t* staged) {
  for (uint64_t i = 0; i < w.staged_elems; ++i) std::memcpy(staged + i * size, fill, size);
  for (uint64_t plane = 0; plane < g.planes; ++plane) {
    for (uint64_t ih = 0; ih < g.in_h; ++ih) {
      const uint8_t* src = input + (plane * g.in_h + ih) * g.in_w * size;
      uint8_t* row = staged + (plane * w.padded_h + ih + g.padding[0]) * w.row_pitch * size;
      for (uint64_t iw = 0; iw < g.in_w; ++iw) {
        const uint64_t column = iw + g.padding[1];
        const uint64_t at = (column % g.stride[1]) * w.phase_pitch + column / g.stride[1];
        std::memcpy(row + at * size, src + iw * size, size);
      }
    }
  }
}

void drop_row_padding(uint64_t rows, uint64_t row_len, uint64_t pitch, size_t size,
                      const uint8_t* src, uint8_t* dst) {
  for (uint64_t row = 0; row < rows; ++row) {
    std::memcpy(dst + row * row_len * size, src + row * pitch * size, row_len * size);
  }
}

}  // namespace kiln::ascend
