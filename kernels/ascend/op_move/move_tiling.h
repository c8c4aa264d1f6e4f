// Tiling of the data-movement kernel (permute, expand, select, split, cat, clone, embedding): a
// POD the host fills with plan_move() from one strided copy.
//
// A move copies a strided view of the source into a destination laid out in rows: the run of
// the destination's innermost dims that the copy keeps contiguous, padded to a 32-byte pitch
// (DeviceBuffer::upload_rows layout), so every DataCopy moves whole blocks on every SoC. The
// rows are indexed by up to kMoveDims outer dims, each with a source stride in elements and a
// destination stride in rows.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

constexpr uint32_t kMoveDims = 8;

enum class MoveMode : uint32_t {
  // The row is contiguous in the source too: rows go GM -> UB -> GM, tile_rows consecutive
  // rows of the innermost outer dim at a time (one strided DataCopy each way where the strides
  // allow), or a long row in chunks.
  Rows = 0,
  // The row strides through the source: tiles of (a source-contiguous dim) x (the row) are
  // read as source runs and transposed inside UB.
  Transpose = 1,
};

// Where the rows' source offsets along outer dim 0 come from (embedding's gather).
enum class MoveIndex : uint32_t { None = 0, Int64 = 1, Int32 = 2 };

struct MoveTiling {
  uint32_t mode;   // MoveMode
  uint32_t index;  // MoveIndex: with one, outer dim 0's coordinate i reads index[i] instead
  uint32_t outer;  // outer dims used, outermost first
  uint32_t k_dim;  // Transpose: the outer dim whose source stride is 1, or kMoveDims for none
  uint64_t sizes[kMoveDims];
  uint64_t src_strides[kMoveDims];  // elements
  uint64_t dst_strides[kMoveDims];  // rows
  uint64_t src_offset;              // elements
  uint64_t dst_row;                 // the first row this move writes
  uint64_t src_elems;               // the source buffer's elements (its GM view)
  uint64_t dst_rows;                // the destination buffer's rows (its GM view)
  uint64_t row_src_stride;          // source stride along the row (1 in Rows mode)
  uint64_t units;        // Rows: row tiles or chunks; Transpose: (outer, k tile, row tile)
  uint64_t block_units;  // units per core; the last core may get fewer
  uint32_t row_len;      // elements of a row
  uint32_t pitch;        // row_len rounded up to whole 32-byte blocks
  uint32_t chunk;        // Rows: elements per chunk (the pitch when whole rows fit);
                         // Transpose: row elements per tile
  uint32_t tile_k;       // Transpose: elements of the k dim per tile
  uint32_t block_dim;
  uint32_t tile_rows;  // Rows: rows of the innermost outer dim per tile (1: chunks)
};

// One strided copy, before planning: `rank` dims in any order, each with its size, its stride
// in the source and its stride in the destination (elements of the unpadded destination, whose
// layout is dense), and the offsets of the first element on both sides.
struct MoveShape {
  static constexpr size_t kMaxRank = 16;
  size_t rank = 0;
  int64_t sizes[kMaxRank] = {};
  int64_t src_strides[kMaxRank] = {};
  int64_t dst_strides[kMaxRank] = {};
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
  // Dim 0's coordinates are replaced by indices (embedding): it stays outer dim 0, whole.
  bool gathered = false;

  // Appends a dim.
  void add(int64_t size, int64_t src_stride, int64_t dst_stride) {
    sizes[rank] = size;
    src_strides[rank] = src_stride;
    dst_strides[rank] = dst_stride;
    ++rank;
  }
};

// Pure. Plans `shape` (no dim of size 0) for elements of `element_size` bytes, whose source
// buffer holds `src_elems` elements. With `row_len` 0 the row is the longest run of innermost
// destination dims the copy keeps contiguous; otherwise it is the destination's given row
// length (the destination is shared with other moves, as cat's inputs share its out), and
// `dst_rows` is the destination's row count. Returns nullptr, or why the shape cannot be moved.
const char* plan_move(const MoveShape& shape, uint64_t row_len, uint64_t dst_rows,
                      size_t element_size, uint64_t src_elems, size_t ub_bytes, uint32_t cores,
                      MoveTiling* tiling);

// Rows of `row_len` elements a dense destination of `numel` elements has.
constexpr uint64_t move_rows(uint64_t numel, uint64_t row_len) {
  return row_len == 0 ? 0 : numel / row_len;
}

}  // namespace kiln::ascend
