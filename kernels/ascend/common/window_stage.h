// Host side of the 2-d window layout (window_layout.h): staging the input planes, and dropping
// the padding of output rows the window kernels wrote segment_pitch apart.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/window_layout.h"

namespace kiln::ascend {

// Fills `staged` (w.staged_elems elements of `size` bytes) with `fill` (one element's bytes),
// then copies each contiguous input plane into its padded, phase-split place.
void stage_windows(const WindowGeometry& g, const WindowLayout& w, const uint8_t* input,
                   size_t size, const uint8_t* fill, uint8_t* staged);

// dst = `rows` rows of `row_len` elements, from src rows `pitch` elements apart.
void drop_row_padding(uint64_t rows, uint64_t row_len, uint64_t pitch, size_t size,
                      const uint8_t* src, uint8_t* dst);

}  // namespace kiln::ascend
