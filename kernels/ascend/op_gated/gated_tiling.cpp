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
  RowSplit& split = tiling.split;
  if (split.tile_rows > kGatedMaxTileRows) split.tile_rows = kGatedMaxTileRows;
  // Elementwise, so a chunk of a row is a unit of work on its own: rows that leave cores idle (a
  // decode batch's few long rows) or do not fit in UB go in chunks, which the cores share out.
  const bool idle_cores = split.block_dim < cores && split.pitch >= 2 * kGatedMinPiece;
  if (split.tile_rows == 0 || idle_cores) {
    const uint64_t ub_chunk =
        (ub_bytes - costs.fixed) / costs.per_chunk_element / kFloatRepeat * kFloatRepeat;
    uint64_t chunk = align_up((rows * split.pitch + cores - 1) / cores, kFloatRepeat);
    if (chunk < kGatedMinPiece) chunk = kGatedMinPiece;
    if (chunk > ub_chunk) chunk = ub_chunk;
    if (chunk > split.pitch) chunk = split.pitch;
    split.tile_rows = 0;
    split.chunk = static_cast<uint32_t>(chunk);
    const uint64_t pieces = rows * ((split.pitch + chunk - 1) / chunk);
    const uint64_t blocks = pieces < cores ? pieces : cores;
    tiling.block_pieces = (pieces + blocks - 1) / blocks;
    split.block_dim =
        static_cast<uint32_t>((pieces + tiling.block_pieces - 1) / tiling.block_pieces);
  }
  return tiling;
}

}  // namespace kiln::ascend
