// batch_norm_tiling: double-buffered row tiles, float tiles for 16-bit dtypes, and the
// channels' parameters resident in UB.
#include "kernels/ascend/op_batch_norm/batch_norm_tiling.h"

namespace kiln::ascend {

BatchNormTiling batch_norm_tiling(DeviceDtype dtype, uint32_t channels, float eps,
                                  uint64_t per_channel, size_t ub_bytes, uint32_t cores) {
  const size_t size = device_element_size(dtype);
  const bool wide = dtype != DeviceDtype::Float;
  BatchNormTiling tiling{};
  tiling.dtype = static_cast<uint32_t>(dtype);
  tiling.channels = channels;
  tiling.channel_pitch = static_cast<uint32_t>(align_up(channels, kFloatRepeat));
  tiling.eps = eps;
  RowUbCosts costs{};
  // 2 input + 2 output buffers of the dtype; half/bfloat16 compute in two float tiles.
  costs.per_tile_element = 4 * size + (wide ? 2 * sizeof(float) : 0);
  costs.per_chunk_element = costs.per_tile_element;
  // The parameter rows, plus 32-byte rounding slack.
  costs.fixed = 1024 + size_t{kBatchNormParamRows} * tiling.channel_pitch * sizeof(float);
  // Enough rows per channel to give every core work, each at least kMinRowElems long.
  constexpr uint64_t kMinRowElems = 4096;
  uint64_t per_row = (cores + channels - 1) / channels;
  if (per_row > per_channel / kMinRowElems) per_row = per_channel / kMinRowElems;
  if (per_row == 0) per_row = 1;
  const uint64_t row_len = (per_channel + per_row - 1) / per_row;
  per_row = (per_channel + row_len - 1) / row_len;  // no row left empty
  tiling.rows_per_channel = static_cast<uint32_t>(per_row);
  tiling.split = split_rows(channels * per_row, row_len, size, costs, ub_bytes, cores);
  return tiling;
}

}  // namespace kiln::ascend
