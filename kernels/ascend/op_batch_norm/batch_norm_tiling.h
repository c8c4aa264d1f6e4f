// Tiling of inference batch norm (_native_batch_norm_legit_no_training): a POD the host fills
// with batch_norm_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/row_split.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// The input [N, C, *] is seen as N * C rows of the inner size; row r belongs to channel r % C.
// The parameters are one float array of kBatchNormParamRows rows of channel_pitch: running mean,
// running var, weight (1 when absent), bias (0 when absent).
struct BatchNormTiling {
  uint32_t dtype;          // DeviceDtype of the input and the output
  uint32_t channels;       // C
  uint32_t channel_pitch;  // C rounded up to whole 256-byte float repeats
  float eps;
  RowSplit split;
};

constexpr uint32_t kBatchNormParamRows = 4;

// The most channels the kernel keeps resident in UB (4 float rows: 64 KiB).
constexpr uint32_t kBatchNormMaxChannels = 4096;

// Pure: the split of `rows` rows of `row_len` elements on a device with `ub_bytes` of UB per
// core and `cores` vector cores, the parameters of `channels` channels resident on every core.
BatchNormTiling batch_norm_tiling(DeviceDtype dtype, uint32_t channels, float eps, uint64_t rows,
                                  uint64_t row_len, size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
