// Tiling of inference batch norm (_native_batch_norm_legit_no_training): a POD the host fills
// with batch_norm_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/row_split.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// The host stages the input [N, C, *] channel by channel: channel c's N x inner elements are
// split into rows_per_channel rows of equal length (the last one padded), so that a row is one
// affine map however many samples there are and the rows still spread over the cores. Row r
// belongs to channel (r / rows_per_channel) % C. The parameters are one float array of
// kBatchNormParamRows rows of channel_pitch: running mean, running var, weight (1 when absent),
// bias (0 when absent).
struct BatchNormTiling {
  uint32_t dtype;          // DeviceDtype of the input and the output
  uint32_t channels;       // C
  uint32_t channel_pitch;  // C rounded up to whole 256-byte float repeats
  uint32_t rows_per_channel;
  float eps;
  uint32_t reserved;
  RowSplit split;
};

constexpr uint32_t kBatchNormParamRows = 4;

// The most channels the kernel keeps resident in UB (4 float rows: 64 KiB).
constexpr uint32_t kBatchNormMaxChannels = 4096;

// Pure: the rows of `channels` channels of `per_channel` elements each and their split on a
// device with `ub_bytes` of UB per core and `cores` vector cores, the parameters of every
// channel resident on each core.
BatchNormTiling batch_norm_tiling(DeviceDtype dtype, uint32_t channels, float eps,
                                  uint64_t per_channel, size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
