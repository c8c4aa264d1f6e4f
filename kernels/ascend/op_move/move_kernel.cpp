// Ascend C data-movement kernel: a strided copy from GM into rows of a padded GM destination.
//
// Rows mode: rows are contiguous in the source and go GM -> UB -> GM through double-buffered
// queues, a tile of consecutive rows at a time (a long row in chunks), with strided DataCopies
// where the rows sit whole blocks apart. Transpose mode: the row strides through the source, so
// a tile reads tile_k-element runs of a source-contiguous dim, one per row element, and the
// scalar unit transposes them inside UB before the rows go out. Elements are moved as unsigned
// integers of their width: the bytes are what a move keeps.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_move/move_kernels.h"
#include "kernels/ascend/op_move/move_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

template <typename T>
class MoveKernel {
  static constexpr int32_t kBufferNum = 2;
  static constexpr uint32_t kBlock = 32 / sizeof(T);
  // The largest gap, in 32-byte blocks, a strided DataCopy skips between two of its blocks.
  static constexpr uint64_t kMaxGap = 65535;

 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR index, GM_ADDR y, const MoveTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.units, t_.block_units);
    first_ = range.start;
    count_ = range.length;
    if (count_ == 0) return;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), t_.src_elems);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), t_.dst_rows * t_.pitch);
    if (static_cast<MoveIndex>(t_.index) == MoveIndex::Int64) {
      index64_.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(index), t_.sizes[0]);
    } else if (static_cast<MoveIndex>(t_.index) == MoveIndex::Int32) {
      index32_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(index), t_.sizes[0]);
    }
    if (static_cast<MoveMode>(t_.mode) == MoveMode::Rows) {
      pipe_.InitBuffer(in_, kBufferNum, t_.tile_rows * t_.chunk * sizeof(T));
      pipe_.InitBuffer(out_, kBufferNum, t_.tile_rows * t_.chunk * sizeof(T));
    } else {
      pipe_.InitBuffer(in_, kBufferNum, t_.chunk * StagePitch() * sizeof(T));
      pipe_.InitBuffer(out_, kBufferNum, t_.tile_k * t_.chunk * sizeof(T));
    }
  }

  __aicore__ inline void Process() {
    if (count_ == 0) return;
    if (static_cast<MoveMode>(t_.mode) == MoveMode::Transpose) {
      ProcessTranspose();
    } else if (t_.tile_rows > 1) {
      ProcessRowTiles();
    } else {
      ProcessRows();
    }
  }

 private:
  __aicore__ inline uint32_t StagePitch() const {
    return (t_.tile_k + kBlock - 1) / kBlock * kBlock;
  }

  // The source element and destination row of the outer coordinates `linear` enumerates
  // (outermost first, dim `skip` left out).
  __aicore__ inline void Locate(uint64_t linear, uint32_t skip, uint64_t* src, uint64_t* row) {
    uint64_t s = t_.src_offset;
    uint64_t r = t_.dst_row;
    for (uint32_t d = t_.outer; d-- > 0;) {
      if (d == skip) continue;
      const uint64_t i = linear % t_.sizes[d];
      linear /= t_.sizes[d];
      s += (d == 0 ? Gathered(i) : i) * t_.src_strides[d];
      r += i * t_.dst_strides[d];
    }
    *src = s;
    *row = r;
  }

  // Outer dim 0's coordinate as the source sees it: itself, or the index stored at it (the
  // destination row keeps the coordinate).
  __aicore__ inline uint64_t Gathered(uint64_t i) {
    switch (static_cast<MoveIndex>(t_.index)) {
      case MoveIndex::Int64:
        return static_cast<uint64_t>(index64_.GetValue(i));
      case MoveIndex::Int32:
        return static_cast<uint64_t>(static_cast<int64_t>(index32_.GetValue(i)));
      default:
        return i;
    }
  }

  __aicore__ inline void ProcessRows() {
    const uint64_t chunks = (t_.pitch + t_.chunk - 1) / t_.chunk;
    for (uint64_t u = first_; u < first_ + count_; ++u) {
      uint64_t src = 0;
      uint64_t row = 0;
      Locate(u / chunks, kMoveDims, &src, &row);
      const uint32_t offset = static_cast<uint32_t>(u % chunks) * t_.chunk;
      const uint32_t n = t_.pitch - offset < t_.chunk ? t_.pitch - offset : t_.chunk;
      copy_in(in_, x_[src + offset], n);
      LocalTensor<T> a = in_.template DeQue<T>();
      LocalTensor<T> b = out_.template AllocTensor<T>();
      DataCopy(b, a, n);
      out_.EnQue(b);
      in_.FreeTensor(a);
      copy_out(y_[row * t_.pitch + offset], out_, n);
    }
  }

  // Tiles of up to tile_rows whole rows, consecutive along the innermost outer dim.
  __aicore__ inline void ProcessRowTiles() {
    const uint32_t inner_dim = t_.outer - 1;
    const uint64_t inner = t_.sizes[inner_dim];
    const uint64_t tiles = (inner + t_.tile_rows - 1) / t_.tile_rows;
    const uint64_t src_stride = t_.src_strides[inner_dim];
    const uint64_t dst_stride = t_.dst_strides[inner_dim];
    const uint32_t row_blocks = t_.pitch / kBlock;
    // One strided DataCopy brings a tile's rows in when they sit a whole number of blocks
    // apart in the source, past each other's ends; else one DataCopy per row.
    const bool strided_in = static_cast<MoveIndex>(t_.index) == MoveIndex::None &&
                            src_stride % kBlock == 0 && src_stride >= t_.pitch &&
                            (src_stride - t_.pitch) / kBlock <= kMaxGap;
    const bool strided_out = (dst_stride - 1) * row_blocks <= kMaxGap;
    for (uint64_t u = first_; u < first_ + count_; ++u) {
      const uint64_t i0 = u % tiles * t_.tile_rows;
      const uint64_t linear = u / tiles * inner + i0;
      const uint32_t n =
          static_cast<uint32_t>(inner - i0 < t_.tile_rows ? inner - i0 : t_.tile_rows);
      uint64_t src = 0;
      uint64_t row = 0;
      Locate(linear, kMoveDims, &src, &row);
      LocalTensor<T> a = in_.template AllocTensor<T>();
      if (strided_in) {
        const uint32_t gap = static_cast<uint32_t>((src_stride - t_.pitch) / kBlock);
        DataCopy(a, x_[src], DataCopyParams(static_cast<uint16_t>(n), row_blocks, gap, 0));
      } else {
        for (uint32_t k = 0; k < n; ++k) {
          uint64_t row_src = 0;
          uint64_t unused = 0;
          Locate(linear + k, kMoveDims, &row_src, &unused);
          DataCopy(a[k * t_.pitch], x_[row_src], t_.pitch);
        }
      }
      in_.EnQue(a);
      a = in_.template DeQue<T>();
      LocalTensor<T> b = out_.template AllocTensor<T>();
      DataCopy(b, a, n * t_.pitch);
      out_.EnQue(b);
      in_.FreeTensor(a);
      b = out_.template DeQue<T>();
      if (dst_stride == 1) {
        DataCopy(y_[row * t_.pitch], b, n * t_.pitch);
      } else if (strided_out) {
        const uint32_t gap = static_cast<uint32_t>((dst_stride - 1) * row_blocks);
        DataCopy(y_[row * t_.pitch], b,
                 DataCopyParams(static_cast<uint16_t>(n), row_blocks, 0, gap));
      } else {
        for (uint32_t k = 0; k < n; ++k) {
          DataCopy(y_[(row + k * dst_stride) * t_.pitch], b[k * t_.pitch], t_.pitch);
        }
      }
      out_.FreeTensor(b);
    }
  }

  __aicore__ inline void ProcessTranspose() {
    const bool has_k = t_.k_dim < t_.outer;
    const uint64_t k_size = has_k ? t_.sizes[t_.k_dim] : 1;
    const uint64_t k_rows = has_k ? t_.dst_strides[t_.k_dim] : 0;
    const uint64_t k_tiles = (k_size + t_.tile_k - 1) / t_.tile_k;
    const uint64_t row_tiles = (t_.row_len + t_.chunk - 1) / t_.chunk;
    const uint32_t stage_pitch = StagePitch();
    for (uint64_t u = first_; u < first_ + count_; ++u) {
      const uint64_t j0 = u % row_tiles * t_.chunk;
      const uint64_t i0 = u / row_tiles % k_tiles * t_.tile_k;
      uint64_t src = 0;
      uint64_t row = 0;
      Locate(u / row_tiles / k_tiles, t_.k_dim, &src, &row);
      const uint32_t na = static_cast<uint32_t>(k_size - i0 < t_.tile_k ? k_size - i0 : t_.tile_k);
      const uint32_t nb =
          static_cast<uint32_t>(t_.row_len - j0 < t_.chunk ? t_.row_len - j0 : t_.chunk);
      const uint32_t na_copied = (na + kBlock - 1) / kBlock * kBlock;
      const uint32_t nb_copied = (nb + kBlock - 1) / kBlock * kBlock;
      // Stage row j: the source run of the k dim at row element j0 + j; one strided DataCopy
      // when the runs sit whole blocks apart, and one run for all when the row is a broadcast.
      LocalTensor<T> stage = in_.template AllocTensor<T>();
      const uint64_t run_stride = t_.row_src_stride;
      const uint32_t run_step = run_stride == 0 ? 0 : stage_pitch;
      if (run_stride == 0) {
        DataCopy(stage, x_[src + i0], na_copied);
      } else if (run_stride % kBlock == 0 && run_stride >= na_copied &&
                 (run_stride - na_copied) / kBlock <= kMaxGap) {
        const DataCopyParams runs(static_cast<uint16_t>(nb), na_copied / kBlock,
                                  static_cast<uint16_t>((run_stride - na_copied) / kBlock),
                                  static_cast<uint16_t>((stage_pitch - na_copied) / kBlock));
        DataCopy(stage, x_[src + i0 + j0 * run_stride], runs);
      } else {
        for (uint32_t j = 0; j < nb; ++j) {
          DataCopy(stage[j * stage_pitch], x_[src + i0 + (j0 + j) * run_stride], na_copied);
        }
      }
      in_.EnQue(stage);
      stage = in_.template DeQue<T>();
      LocalTensor<T> tile = out_.template AllocTensor<T>();
      // The scalar unit reads what MTE2 wrote and writes what MTE3 last read.
      wait_pipe<HardEvent::MTE2_S>();
      wait_pipe<HardEvent::MTE3_S>();
      for (uint32_t i = 0; i < na; ++i) {
        for (uint32_t j = 0; j < nb; ++j) {
          tile.SetValue(i * t_.chunk + j, stage.GetValue(j * run_step + i));
        }
      }
      // MTE3 copies out what the scalar unit wrote; MTE2 refills the stage only after its reads.
      wait_pipe<HardEvent::S_MTE3>();
      wait_pipe<HardEvent::S_MTE2>();
      out_.EnQue(tile);
      in_.FreeTensor(stage);
      tile = out_.template DeQue<T>();
      const uint64_t out_stride = k_rows * t_.pitch;
      if (na > 1 && (out_stride - nb_copied) / kBlock <= kMaxGap) {
        const DataCopyParams rows(static_cast<uint16_t>(na), nb_copied / kBlock,
                                  static_cast<uint16_t>((t_.chunk - nb_copied) / kBlock),
                                  static_cast<uint16_t>((out_stride - nb_copied) / kBlock));
        DataCopy(y_[(row + i0 * k_rows) * t_.pitch + j0], tile, rows);
      } else {
        for (uint32_t i = 0; i < na; ++i) {
          DataCopy(y_[(row + (i0 + i) * k_rows) * t_.pitch + j0], tile[i * t_.chunk], nb_copied);
        }
      }
      out_.FreeTensor(tile);
    }
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  GlobalTensor<T> x_;
  GlobalTensor<T> y_;
  GlobalTensor<int64_t> index64_;
  GlobalTensor<int32_t> index32_;
  MoveTiling t_;
  uint64_t first_ = 0;
  uint64_t count_ = 0;
};

template <typename T>
__aicore__ inline void run_move(GM_ADDR x, GM_ADDR index, GM_ADDR y, GM_ADDR tiling) {
  run_kernel<MoveKernel<T>>(load_tiling<MoveTiling>(tiling), x, index, y);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_MOVE_RUN kiln::ascend::run_move
KILN_ASCEND_DEFINE_KERNELS(KILN_MOVE)
