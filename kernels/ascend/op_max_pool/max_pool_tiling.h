// Tiling of max_pool2d_with_indices: a POD the host fills with max_pool_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// The host lays out every window as `taps` planes of `total` elements (output element o of plane
// t is the t-th in-bounds tap of o's window, in torch's row-major order, or -inf past the last);
// the kernel reduces the planes element by element to the maximum and the plane it came from.
struct MaxPoolTiling {
  uint32_t dtype;  // DeviceDtype of input and output
  uint32_t taps;   // planes: kernel height x kernel width
  uint64_t total;  // output elements, padded to whole 256-byte repeats
  uint64_t block_elems;
  uint32_t block_dim;
  uint32_t tile_elems;
};

// The largest window the kernel takes (its plane numbers are exact in float far beyond this).
constexpr uint32_t kMaxPoolMaxTaps = 1024;

// Pure: the split of `count` output elements over `cores` vector cores and UB tiles.
MaxPoolTiling max_pool_tiling(DeviceDtype dtype, uint32_t taps, uint64_t count, size_t ub_bytes,
                              uint32_t cores);

}  // namespace kiln::ascend
