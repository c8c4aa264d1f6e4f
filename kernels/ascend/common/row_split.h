// How Kiln's row kernels (reduce, softmax, layer_norm) spread the rows of a [rows, row_len] tensor
// over vector cores and UB tiles. Header-only, so each family's tiling function uses it.
//
// The host pads every row to a 32-byte pitch (DeviceBuffer::upload_rows), so each row starts on
// a 32-byte boundary in GM and in UB and every DataCopy moves whole blocks. A core gets whole
// rows. Rows that fit in UB go several to a tile; a row that does not fit goes through UB in
// chunks (tile_rows == 0), which each kernel reads in as many passes as its formula needs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// The UB, in bytes, a row kernel needs for a given tile; queues count each of their buffers.
struct RowUbCosts {
  size_t per_tile_element;   // tile-sized buffers, per element of the tile (rows x pitch)
  size_t per_tile_row;       // per-row results of a tile (e.g. one 32-byte output block per row)
  size_t per_row_element;    // buffers one row long whatever the tile (row scratch, parameters)
  size_t per_chunk_element;  // a row in chunks: every buffer, per element of a chunk
  size_t fixed;              // buffers independent of the shape, plus 32-byte rounding slack
};

struct RowSplit {
  uint64_t rows;
  uint32_t row_len;     // elements of one row
  uint32_t pitch;       // row_len rounded up to 32 bytes of the storage dtype
  uint64_t block_rows;  // rows per core; the last core may get fewer
  uint32_t block_dim;   // cores used (at least 1)
  uint32_t tile_rows;   // rows per UB tile, or 0: a row does not fit and goes in chunks
  uint32_t chunk;       // tile_rows == 0: elements per chunk (a multiple of 64, or the pitch
                        // when that is smaller); else the pitch
  uint32_t reserved;    // keeps the layout free of implicit padding (host and device agree)
};

// Elements every vector operand count is rounded up to when a whole repeat is needed (Compare,
// Select): one 256-byte repeat of float.
constexpr uint32_t kFloatRepeat = 64;

// Bytes of the work tensor ReduceMax/ReduceSum need for up to `count` floats: a value/index pair
// per 256-byte repeat, rounded up to whole 32-byte blocks, plus 64 floats for the later rounds
// of the reduction and for scalar scratch.
constexpr uint32_t reduce_work_bytes(uint32_t count) {
  const uint32_t repeats = (count + kFloatRepeat - 1) / kFloatRepeat;
  return ((2 * repeats + 7) / 8 * 8 + 64) * 4;
}

// Pure. Cores first (at least `min_block_elems` padded elements each), then the largest tile of
// whole rows that fits in `ub_bytes`; a row that does not fit gets the largest chunk that does.
inline RowSplit split_rows(uint64_t rows, uint64_t row_len, size_t element_size,
                           const RowUbCosts& costs, size_t ub_bytes, uint32_t cores,
                           uint64_t min_block_elems = 4096) {
  RowSplit split{};
  split.rows = rows;
  split.row_len = static_cast<uint32_t>(row_len);
  split.pitch = static_cast<uint32_t>(align_up(row_len, elements_per_block(element_size)));
  const uint64_t padded = rows * split.pitch;
  uint64_t blocks = (padded + min_block_elems - 1) / min_block_elems;
  if (blocks > cores) blocks = cores;
  if (blocks > rows) blocks = rows;
  if (blocks == 0) blocks = 1;
  split.block_rows = (rows + blocks - 1) / blocks;
  if (split.block_rows == 0) split.block_rows = 1;
  split.block_dim = static_cast<uint32_t>((rows + split.block_rows - 1) / split.block_rows);
  if (split.block_dim == 0) split.block_dim = 1;

  const uint64_t row_fixed = costs.fixed + uint64_t{split.pitch} * costs.per_row_element;
  const uint64_t per_row = uint64_t{split.pitch} * costs.per_tile_element + costs.per_tile_row;
  if (row_fixed + per_row <= ub_bytes) {
    uint64_t tile_rows = (ub_bytes - row_fixed) / per_row;
    if (tile_rows > split.block_rows) tile_rows = split.block_rows;
    split.tile_rows = static_cast<uint32_t>(tile_rows);
    split.chunk = split.pitch;
    return split;
  }
  uint64_t chunk = costs.fixed < ub_bytes ? (ub_bytes - costs.fixed) / costs.per_chunk_element : 0;
  chunk = chunk / kFloatRepeat * kFloatRepeat;
  if (chunk < kFloatRepeat) chunk = kFloatRepeat;
  if (chunk > split.pitch) chunk = split.pitch;
  split.tile_rows = 0;
  split.chunk = static_cast<uint32_t>(chunk);
  return split;
}

}  // namespace kiln::ascend
