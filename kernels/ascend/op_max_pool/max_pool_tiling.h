// Tiling of max_pool2d_with_indices: a POD the host fills with max_pool_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/tiling.h"
#include "kernels/ascend/common/window_layout.h"

namespace kiln::ascend {

// The input is staged -inf-padded (window_layout.h). The kernel gathers each tap of a tile of
// output rows and reduces the taps element by element to the maximum and the tap it came from;
// both come out as rows of segment_pitch elements (the host drops the padding).
struct MaxPoolTiling {
  WindowLayout window;
  uint32_t dtype;  // DeviceDtype of input and output
  uint32_t taps;   // kernel height x kernel width
  uint64_t rows;   // planes x out_h
  uint64_t block_rows;
  uint32_t block_dim;
  uint32_t tile_rows;  // output rows per UB tile
};

// The largest window the kernel takes (tap numbers are exact in float far beyond this).
constexpr uint32_t kMaxPoolMaxTaps = 1024;

// Whether the kernel takes this window: an output row fits a UB tile and DataCopy's strides
// express the layout.
bool max_pool_fits(const WindowGeometry& g, DeviceDtype dtype, size_t ub_bytes);

// Pure: the staged layout and the split of the output rows over `cores` vector cores.
MaxPoolTiling max_pool_tiling(const WindowGeometry& g, DeviceDtype dtype, size_t ub_bytes,
                              uint32_t cores);

}  // namespace kiln::ascend
