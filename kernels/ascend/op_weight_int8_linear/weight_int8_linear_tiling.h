// Tiling of the weight-only int8 linear kernel: a POD the host fills with
// weight_int8_linear_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// Output channels go to the cores in tiles of `channel_tile`; a core computes its tiles for
// `token_tile` rows of x at a time, reading x and the weight in chunks of `chunk` along k.
//
// GM layout (elements): x is m rows of `pitch` (x's dtype), the weight n rows of `pitch` int8,
// both zero padded; scales and bias are tiles x channel_tile floats (zero padded); y is m rows
// of `y_pitch` (y's dtype).
struct WeightInt8LinearTiling {
  uint32_t dtype;  // DeviceDtype of x and y
  uint32_t block_dim;
  uint64_t m;        // rows of x and y
  uint32_t n;        // out_features
  uint32_t k;        // in_features
  uint32_t pitch;    // k rounded up to kWeightInt8Repeat
  uint32_t y_pitch;  // n rounded up to 32 bytes of y's dtype
  uint32_t chunk;    // elements of k per pass, a multiple of kWeightInt8Repeat
  uint32_t token_tile;
  uint32_t channel_tile;  // a multiple of kWeightInt8ChannelAlign
  uint32_t tiles;         // channel tiles: ceil(n / channel_tile)
  uint32_t block_tiles;   // channel tiles per core; the last core may get fewer
  uint32_t has_bias;
};

// Rows of x and the weight are padded to this many elements: whole 32-byte blocks of int8 and
// whole 256-byte repeats of float, so that every chunk offset is aligned in every buffer.
constexpr uint32_t kWeightInt8Repeat = 64;
// Channel tiles start on 32-byte boundaries of every result dtype (and of the float scales).
constexpr uint32_t kWeightInt8ChannelAlign = 16;

// Pure: the split of an [m, k] x [n, k] product over `cores` vector cores with `ub_bytes` of UB
// each. Needs m, n, k >= 1.
WeightInt8LinearTiling weight_int8_linear_tiling(DeviceDtype dtype, uint64_t m, uint32_t n,
                                                 uint32_t k, size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
