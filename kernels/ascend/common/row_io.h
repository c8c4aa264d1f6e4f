// Device-side tile plumbing of Kiln's Ascend C kernels: GM <-> UB through queues (whole rows of
// a GmRows layout too), a core's rows and chunks of a RowSplit, half/bfloat16 tiles computed in
// float, and one launch of a kernel.
#pragma once

#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/gm_rows.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/common/row_split.h"

namespace kiln::ascend {

// GM -> UB: `count` elements of `src` into a fresh buffer of `que`, queued so that the vector
// unit's DeQue waits for the copy (MTE2) to land.
template <typename T, typename Que>
__aicore__ inline void copy_in(Que& que, const AscendC::GlobalTensor<T>& src, uint32_t count) {
  AscendC::LocalTensor<T> tile = que.template AllocTensor<T>();
  AscendC::DataCopy(tile, src, count);
  que.EnQue(tile);
}

// UB -> GM: the tile the vector unit queued last on `que`, `count` elements of it into `dst`;
// the buffer goes back to the queue for the next tile.
template <typename T, typename Que>
__aicore__ inline void copy_out(const AscendC::GlobalTensor<T>& dst, Que& que, uint32_t count) {
  AscendC::LocalTensor<T> tile = que.template DeQue<T>();
  AscendC::DataCopy(dst, tile, count);
  que.FreeTensor(tile);
}

// The most rows one strided DataCopy moves (its blockCount has 12 bits).
constexpr uint32_t kMaxCopyRows = 4095;

// The strided DataCopy of `count` rows of `cols` elements (whole 32-byte blocks of T), rows
// `src_spacing` elements apart at the source and `dst_spacing` apart at the destination (each
// at least `cols`, whole blocks: gm_rows.h). A single row has no gaps.
template <typename T>
__aicore__ inline AscendC::DataCopyParams row_copy_params(uint32_t count, uint32_t cols,
                                                          uint64_t src_spacing,
                                                          uint64_t dst_spacing) {
  constexpr uint32_t kBlock = 32 / sizeof(T);
  const bool gaps = count > 1;
  return AscendC::DataCopyParams(static_cast<uint16_t>(count), static_cast<uint16_t>(cols / kBlock),
                                 static_cast<uint16_t>(gaps ? (src_spacing - cols) / kBlock : 0),
                                 static_cast<uint16_t>(gaps ? (dst_spacing - cols) / kBlock : 0));
}

// Of the rows from `row` on (at most `left`): how many are evenly spaced (the rest of a group, or
// every row of a one-group layout, at most kMaxCopyRows) and their spacing.
struct RowRun {
  uint32_t rows;
  uint64_t spacing;
};

__aicore__ inline RowRun row_run(const GmRows& layout, uint64_t row, uint32_t left) {
  RowRun run{left, layout.stride};
  if (layout.group > 1) {
    const uint32_t in_group = layout.group - static_cast<uint32_t>(row % layout.group);
    if (run.rows > in_group) run.rows = in_group;
    run.spacing = layout.step;
  }
  if (run.rows > kMaxCopyRows) run.rows = kMaxCopyRows;
  return run;
}

// GM -> UB: `cols` elements (whole 32-byte blocks) of rows [first, first + count) of `src`, laid
// out as `layout`, into a fresh buffer of `que`, rows `pitch` elements apart, queued for the
// vector unit. `src` may start at a column of row 0 (a chunk of a long row).
template <typename T, typename Que>
__aicore__ inline void copy_rows_in(Que& que, const AscendC::GlobalTensor<T>& src,
                                    const GmRows& layout, uint64_t first, uint32_t count,
                                    uint32_t cols, uint32_t pitch) {
  AscendC::LocalTensor<T> tile = que.template AllocTensor<T>();
  for (uint32_t done = 0; done < count;) {
    const RowRun run = row_run(layout, first + done, count - done);
    AscendC::DataCopy(tile[done * pitch], src[gm_row_offset(layout, first + done)],
                      row_copy_params<T>(run.rows, cols, run.spacing, pitch));
    done += run.rows;
  }
  que.EnQue(tile);
}

// UB -> GM: the inverse of copy_rows_in for the tile the vector unit queued last on `que`.
template <typename T, typename Que>
__aicore__ inline void copy_rows_out(const AscendC::GlobalTensor<T>& dst, const GmRows& layout,
                                     uint64_t first, uint32_t count, uint32_t cols, uint32_t pitch,
                                     Que& que) {
  AscendC::LocalTensor<T> tile = que.template DeQue<T>();
  for (uint32_t done = 0; done < count;) {
    const RowRun run = row_run(layout, first + done, count - done);
    AscendC::DataCopy(dst[gm_row_offset(layout, first + done)], tile[done * pitch],
                      row_copy_params<T>(run.rows, cols, pitch, run.spacing));
    done += run.rows;
  }
  que.FreeTensor(tile);
}

// This core's rows of a RowSplit and the UB tiles they go through: whole rows, tile_rows at a
// time, or (chunked) one row at a time in chunks.
struct RowBlock {
  uint64_t first = 0;       // the core's first row
  uint64_t rows = 0;        // its rows; 0 leaves the core idle
  uint32_t tile_rows = 1;   // rows per tile; 1 when chunked
  uint32_t tile_elems = 0;  // elements of a tile, or of a chunk
  uint32_t row_elems = 0;   // elements of a row as UB holds it: the pitch, or a chunk
  bool chunked = false;

  // Rows of the tile that starts at this core's row `row`: tile_rows, or what is left.
  __aicore__ inline uint32_t TileRowsAt(uint64_t row) const {
    return static_cast<uint32_t>(rows - row < tile_rows ? rows - row : tile_rows);
  }
};

// This core's RowBlock (by GetBlockIdx).
__aicore__ inline RowBlock row_block(const RowSplit& split) {
  const BlockRange range = block_range(split.rows, split.block_rows);
  RowBlock block;
  block.first = range.start;
  block.rows = range.length;
  block.chunked = split.tile_rows == 0;
  block.tile_rows = block.chunked ? 1 : split.tile_rows;
  block.tile_elems = block.chunked ? split.chunk : block.tile_rows * split.pitch;
  block.row_elems = block.chunked ? split.chunk : split.pitch;
  return block;
}

// Of the chunk at `offset` in a row that goes through UB in chunks (RowSplit::tile_rows == 0):
// the elements to copy, whole 32-byte blocks up to the padded pitch, ...
__aicore__ inline uint32_t chunk_copied(const RowSplit& split, uint32_t offset) {
  return split.pitch - offset < split.chunk ? split.pitch - offset : split.chunk;
}

// ... and the elements of the row itself, the only ones a row formula may read (the padding up
// to the pitch is not part of the row).
__aicore__ inline uint32_t chunk_valid(const RowSplit& split, uint32_t offset) {
  return split.row_len - offset < split.chunk ? split.row_len - offset : split.chunk;
}

// An input tile of storage type T as the vector unit reads it in C: the tile itself when T is C,
// else a C buffer it is widened into (half/bfloat16 compute in float, rounded once at the end).
template <typename T, typename C = float>
class ComputeIn {
  static constexpr bool kWide = !std::is_same_v<T, C>;
  static_assert(!kWide || std::is_same_v<C, float>, "16-bit tiles widen to float only");

 public:
  // Room for `elems` elements of C, taken from UB only when T needs widening.
  __aicore__ inline void Init(AscendC::TPipe& pipe, uint32_t elems) {
    if constexpr (kWide) pipe.InitBuffer(buf_, elems * sizeof(C));
  }

  // x[0, count) in C.
  __aicore__ inline AscendC::LocalTensor<C> View(const AscendC::LocalTensor<T>& x, uint32_t count) {
    if constexpr (kWide) {
      AscendC::LocalTensor<C> wide = buf_.template Get<C>();
      widen(wide, x, count);
      return wide;
    } else {
      return x;
    }
  }

 private:
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf_;
};

// An output tile of storage type T as the vector or scalar unit writes it in C: the tile itself
// when T is C, else a C buffer that Emit narrows into the tile.
template <typename T, typename C = float>
class ComputeOut {
  static constexpr bool kWide = !std::is_same_v<T, C>;
  static_assert(!kWide || std::is_same_v<C, float>, "16-bit tiles narrow from float only");

 public:
  __aicore__ inline void Init(AscendC::TPipe& pipe, uint32_t elems) {
    if constexpr (kWide) pipe.InitBuffer(buf_, elems * sizeof(C));
  }

  // Where the results for `y` go.
  __aicore__ inline AscendC::LocalTensor<C> View(const AscendC::LocalTensor<T>& y) {
    if constexpr (kWide) {
      return buf_.template Get<C>();
    } else {
      return y;
    }
  }

  // Queues `y` for copy_out once the vector unit has written `count` results.
  template <typename Que>
  __aicore__ inline void Emit(Que& que, const AscendC::LocalTensor<T>& y, uint32_t count) {
    if constexpr (kWide) narrow(y, buf_.template Get<C>(), count);
    que.EnQue(y);
  }

  // The same for results the scalar unit wrote (SetValue): EnQue orders the vector unit before
  // the copy out, not the scalar unit, so the narrowing Cast or else the copy out waits for it.
  template <typename Que>
  __aicore__ inline void EmitScalar(Que& que, const AscendC::LocalTensor<T>& y, uint32_t count) {
    if constexpr (kWide) {
      wait_pipe<AscendC::HardEvent::S_V>();
      narrow(y, buf_.template Get<C>(), count);
    } else {
      wait_pipe<AscendC::HardEvent::S_MTE3>();
    }
    que.EnQue(y);
  }

 private:
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf_;
};

// One core's share of a launch, for the `extern "C"` entries: a kernel class is Init with the
// launch's GM tensors and the tiling read from GM, then Process.
template <typename Kernel, typename Tiling, typename... Gm>
__aicore__ inline void run_kernel(const Tiling& tiling, Gm... gm) {
  Kernel kernel;
  kernel.Init(gm..., tiling);
  kernel.Process();
}

}  // namespace kiln::ascend
