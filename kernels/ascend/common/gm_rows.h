// Where a row kernel finds a tensor's rows in device memory (GM), so that it can take row views
// (RowView, kernels/portable/cpu/util/llm/arguments.h) where they lie: a POD of the tilings.
//
// A tensor's rows come in groups (its dim-0 rows, each holding `group` rows of the kernel), rows
// of a group `step` elements apart and groups `stride` apart. A dense tensor, or a padded one,
// is one group of every row, `stride` apart. Host wrappers fill it (row_image.h) so that every
// spacing the kernel copies across is a whole number of 32-byte blocks, at least the elements it
// copies from a row: each evenly spaced run of rows is then one strided DataCopy (copy_rows_in
// and copy_rows_out in row_io.h).
#pragma once

#include <cstdint>

namespace kiln::ascend {

struct GmRows {
  uint64_t stride;  // elements from one group to the next
  uint32_t group;   // rows per group, at least 1
  uint32_t step;    // elements from one row of a group to the next (group > 1)
};

// The element offset of row `row`.
constexpr uint64_t gm_row_offset(const GmRows& rows, uint64_t row) {
  return rows.group == 1 ? row * rows.stride
                         : row / rows.group * rows.stride + row % rows.group * rows.step;
}

}  // namespace kiln::ascend
