// rms_norm_tiling: double-buffered row tiles (input, residual, output, sum), float tiles for
// 16-bit dtypes, a float row for the sums, the weight row.
#include "kernels/ascend/op_rms_norm/rms_norm_tiling.h"

namespace kiln::ascend {

RmsNormTiling rms_norm_tiling(DeviceDtype dtype, bool fused, float eps, uint64_t rows,
                              uint64_t row_len, size_t ub_bytes, uint32_t cores) {
  const size_t size = device_element_size(dtype);
  const bool wide = dtype != DeviceDtype::Float;
  const size_t streams = fused ? 2 : 1;  // input (+ residual) in, output (+ sum) out
  RowUbCosts costs{};
  // 2 buffers of the dtype per stream in and out; half/bfloat16 compute in float tiles (input,
  // output, and the residual when fused).
  costs.per_tile_element = 2 * 2 * streams * size + (wide ? (1 + streams) * sizeof(float) : 0);
  costs.per_tile_row = 0;
  // The float row the sum of squares folds in, the weight row in its queue (2 buffers) and, for
  // 16-bit dtypes, as float.
  costs.per_row_element = sizeof(float) + 2 * size + (wide ? sizeof(float) : 0);
  costs.per_chunk_element = costs.per_tile_element + costs.per_row_element;
  costs.fixed = 1024 + reduce_work_bytes(kFloatRepeat);  // 32-byte rounding, ReduceSum's work
  RmsNormTiling tiling{};
  tiling.dtype = static_cast<uint32_t>(dtype);
  tiling.fused = fused ? 1 : 0;
  tiling.eps = eps;
  tiling.split = split_rows(rows, row_len, size, costs, ub_bytes, cores);
  return tiling;
}

}  // namespace kiln::ascend
