// softmax_tiling: double-buffered input and output row tiles, float tiles for 16-bit dtypes,
// one float row of scratch for the sum.
#include "kernels/ascend/op_softmax/softmax_tiling.h"

namespace kiln::ascend {

SoftmaxTiling softmax_tiling(bool log, DeviceDtype dtype, uint64_t rows, uint64_t row_len,
                             size_t ub_bytes, uint32_t cores) {
  const size_t size = device_element_size(dtype);
  const bool wide = dtype != DeviceDtype::Float;
  RowUbCosts costs{};
  // 2 input + 2 output buffers of the dtype; half/bfloat16 compute in two float tiles.
  costs.per_tile_element = 4 * size + (wide ? 2 * sizeof(float) : 0);
  costs.per_tile_row = 0;
  // The float row the sum folds in, and ReduceMax's work (1/8 float per element, as 1 byte).
  costs.per_row_element = sizeof(float) + 1;
  costs.per_chunk_element = costs.per_tile_element + costs.per_row_element;
  costs.fixed = 1024;  // 32-byte rounding of each buffer, the scalar scratch
  return {log ? 1u : 0u, static_cast<uint32_t>(dtype),
          split_rows(rows, row_len, size, costs, ub_bytes, cores)};
}

}  // namespace kiln::ascend
