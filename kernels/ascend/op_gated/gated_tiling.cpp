// gated_tiling: double-buffered x, y and out tiles, float tiles for 16-bit dtypes, the formula's
// scratch tiles and mask.
#include "kernels/ascend/op_gated/gated_tiling.h"

namespace kiln::ascend {

GatedTiling gated_tiling(GatedOp op, DeviceDtype dtype, uint64_t rows, uint64_t d, size_t ub_bytes,
                         uint32_t cores) {
  const size_t size = device_element_size(dtype);
  const bool wide = dtype != DeviceDtype::Float;
  const GatedNeeds needs = gated_needs(op);
  RowUbCosts costs{};
  // 2 buffers each of x, y and out in the dtype; half/bfloat16 compute in three float tiles; the
  // formula's scratch tiles; its masks (an eighth of a byte per element, counted as one).
  costs.per_tile_element = 3 * 2 * size + (wide ? 3 * sizeof(float) : 0) +
                           needs.scratch_tiles * sizeof(float) + needs.masks;
  costs.per_tile_row = 0;
  costs.per_row_element = 0;
  costs.per_chunk_element = costs.per_tile_element;
  // 32-byte rounding of each buffer, and every tile rounded up to whole 256-byte float repeats
  // (Compare and Select work on whole repeats).
  costs.fixed = 1024 + kFloatRepeat * costs.per_tile_element;
  GatedTiling tiling{};
  tiling.op = static_cast<uint32_t>(op);
  tiling.dtype = static_cast<uint32_t>(dtype);
  tiling.split = split_rows(rows, d, size, costs, ub_bytes, cores);
  if (tiling.split.tile_rows > kGatedMaxTileRows) tiling.split.tile_rows = kGatedMaxTileRows;
  return tiling;
}

}  // namespace kiln::ascend
