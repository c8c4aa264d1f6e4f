// layer_norm_tiling: double-buffered row tiles, float tiles for 16-bit dtypes, a float row for
// the sums, weight and bias rows, per-row mean/rstd blocks.
#include "kernels/ascend/op_layer_norm/layer_norm_tiling.h"

namespace kiln::ascend {

LayerNormTiling layer_norm_tiling(DeviceDtype dtype, DeviceDtype param_dtype, bool has_weight,
                                  bool has_bias, float eps, uint64_t rows, uint64_t row_len,
                                  size_t ub_bytes, uint32_t cores) {
  const size_t size = device_element_size(dtype);
  const size_t param_size = device_element_size(param_dtype);
  const bool wide = dtype != DeviceDtype::Float;
  const bool wide_params = param_dtype != DeviceDtype::Float;
  const size_t params = (has_weight ? 1 : 0) + (has_bias ? 1 : 0);
  RowUbCosts costs{};
  // 2 input + 2 output buffers of the dtype; half/bfloat16 compute in two float tiles.
  costs.per_tile_element = 4 * size + (wide ? 2 * sizeof(float) : 0);
  // 2 buffers holding a row's mean and rstd blocks; 16-bit statistics are staged as float.
  costs.per_tile_row = 2 * 2 * kLayerNormStatPitchBytes + (wide_params ? 2 * 64 : 0);
  // The float row the sums fold in (plus ReduceSum's work), the weight and bias rows in their
  // queue (2 buffers) and, for 16-bit parameters, as float.
  costs.per_row_element =
      sizeof(float) + 1 + (params > 0 ? 2 * param_size : 0) + params * (wide_params ? 4 : 0);
  costs.per_chunk_element = costs.per_tile_element + costs.per_row_element;
  // 32-byte rounding of each buffer, scalar scratch, one row's statistics in chunked mode.
  costs.fixed = 1024 + costs.per_tile_row;
  LayerNormTiling tiling{};
  tiling.dtype = static_cast<uint32_t>(dtype);
  tiling.param_dtype = static_cast<uint32_t>(param_dtype);
  tiling.has_weight = has_weight ? 1 : 0;
  tiling.has_bias = has_bias ? 1 : 0;
  tiling.eps = eps;
  tiling.split = split_rows(rows, row_len, size, costs, ub_bytes, cores);
  return tiling;
}

}  // namespace kiln::ascend
