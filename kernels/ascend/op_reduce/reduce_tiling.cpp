// reduce_tiling: row tiles of the input, one 32-byte output block per row, float scratch.
#include "kernels/ascend/op_reduce/reduce_tiling.h"

namespace kiln::ascend {

ReduceTiling reduce_tiling(ReduceOp op, DeviceDtype dtype, uint64_t rows, uint64_t row_len,
                           size_t ub_bytes, uint32_t cores) {
  const size_t size = device_element_size(dtype);
  const bool wide = dtype == DeviceDtype::Half || dtype == DeviceDtype::BFloat16;
  const bool nan_check = op == ReduceOp::Amax && dtype != DeviceDtype::Int32;
  RowUbCosts costs{};
  // 2 input buffers of the dtype; half/bfloat16 also widen the tile to float.
  costs.per_tile_element = 2 * size + (wide ? sizeof(float) : 0);
  // 2 output buffers of one 32-byte block per row; half/bfloat16 stage results as float first.
  costs.per_tile_row = 2 * kReduceOutPitchBytes + (wide ? 2 * kReduceOutPitchBytes : 0);
  // ReduceMax's work (1/8 float per element, counted as 1 byte); amax's NaN check: a float
  // indicator row, a row of zeros and a mask bit per element.
  costs.per_row_element = 1 + (nan_check ? 2 * sizeof(float) + 1 : 0);
  costs.per_chunk_element = costs.per_tile_element + costs.per_row_element;
  // Vector operands may run up to one float repeat past a row (whole repeats), and each buffer
  // rounds up to 32 bytes.
  costs.fixed = kFloatRepeat * (2 * size + 3 * sizeof(float)) + 1024;
  return {static_cast<uint32_t>(op), static_cast<uint32_t>(dtype),
          split_rows(rows, row_len, size, costs, ub_bytes, cores)};
}

}  // namespace kiln::ascend
