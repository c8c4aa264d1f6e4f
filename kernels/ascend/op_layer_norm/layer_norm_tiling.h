// Tiling of native_layer_norm over the last dim: a POD the host fills with layer_norm_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/row_split.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

struct LayerNormTiling {
  uint32_t dtype;        // DeviceDtype of the input and of the output
  uint32_t param_dtype;  // DeviceDtype of weight, bias, mean and rstd (the input's, or Float)
  uint32_t has_weight;
  uint32_t has_bias;
  float eps;
  uint32_t reserved;
  RowSplit split;
};

// Each row's mean and rstd land in their own 32-byte blocks (the host keeps the first element),
// so cores never write the same bytes and every DataCopy moves whole blocks.
constexpr uint32_t kLayerNormStatPitchBytes = 32;

// Pure: the split of `rows` rows of `row_len` elements on a device with `ub_bytes` of UB per
// core and `cores` vector cores. Rows that fit keep weight and bias in UB for the whole core;
// longer rows go in chunks (statistics, then the normalized output) with the parameters
// streamed chunk by chunk.
LayerNormTiling layer_norm_tiling(DeviceDtype dtype, DeviceDtype param_dtype, bool has_weight,
                                  bool has_bias, float eps, uint64_t rows, uint64_t row_len,
                                  size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
