// Tiling of the im2col kernel that lays a 2-d convolution's input out as matmul columns: a POD
// the host fills with im2col_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/tiling.h"
#include "kernels/ascend/common/window_layout.h"

namespace kiln::ascend {

// A 2-d convolution (not transposed): its window over each input plane (planes: batch x input
// channels), groups and channels, whether it has a bias.
struct ConvGeometry {
  WindowGeometry window;
  uint64_t batch, groups, in_per_group, out_per_group;
  bool bias;
};

// The input is staged zero-padded (window_layout.h). The columns (matmul's B), per sample and
// group: `reduce` rows (input channel, kernel row, kernel column; then a row of ones with a
// bias), each out_h runs of segment_pitch elements (the extra columns are dropped on the host).
struct Im2colTiling {
  WindowLayout window;
  uint32_t dtype;  // DeviceDtype
  uint32_t bias;   // the last row of each group's columns is ones
  uint64_t rows;   // batch x groups x reduce
  uint32_t reduce;
  uint32_t in_channels;
  uint32_t in_per_group;
  uint32_t groups;
  uint32_t taps;           // kernel_h x kernel_w
  uint32_t tile_segments;  // output rows per UB tile
  uint64_t block_rows;     // column rows per core
  uint32_t block_dim;
  uint32_t reserved;
};

// Whether the kernel takes this convolution: an output row fits a UB tile and DataCopy's
// strides express the layout.
bool im2col_fits(const ConvGeometry& c, DeviceDtype dtype, size_t ub_bytes);

// Pure: the staged layout and the split of the column rows over `cores` vector cores.
Im2colTiling im2col_tiling(const ConvGeometry& c, DeviceDtype dtype, size_t ub_bytes,
                           uint32_t cores);

}  // namespace kiln::ascend
