// Ascend C gated activation kernel (kiln::silu_and_mul, kiln::gelu_and_mul): out = act(x) * y,
// where each input row holds x then y. Each core takes whole rows of out.
//
// Input and out rows lie in GM as their GmRows say (row views where they lie, else rows padded to
// whole blocks), an input row's y d elements after its x, so one strided DataCopy brings the x
// of a tile's rows into one contiguous tile and another their y; the formula then runs once over
// the whole tile. As vLLM computes it: act in float, rounded to the dtype, then the product
// rounded. Rows longer than a tile go in chunks, which the cores share out one by one.
#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_gated/gated_kernels.h"
#include "kernels/ascend/op_gated/gated_tiling.h"
#include "kernels/ascend/op_unary/unary_math.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i computes

// silu(x) = x / (1 + exp(-x)), one division as torch computes it; exp overflows to inf for
// x < -88 and the result is -0, as in torch.
__aicore__ inline void silu_float(const LocalTensor<float>& dst, const LocalTensor<float>& x,
                                  const UnaryWork& w, uint32_t n) {
  Muls(w.s0, x, -1.0f, n);
  Exp(w.s0, w.s0, n);
  Adds(w.s0, w.s0, 1.0f, n);
  Div(dst, x, w.s0, n);
}

template <typename T>
class GatedKernel {
  static constexpr bool kWide = !std::is_same_v<T, float>;

 public:
  __aicore__ inline void Init(GM_ADDR input, GM_ADDR out, const GatedTiling& tiling) {
    op_ = static_cast<GatedOp>(tiling.op);
    split_ = tiling.split;
    input_rows_ = tiling.input;
    out_rows_ = tiling.out;
    block_ = row_block(split_);
    if (block_.chunked) {
      // Rows in chunks: the cores share out (row, chunk) pieces, not rows, so that a few long
      // rows (a decode batch's MLP) still spread over every core.
      chunks_per_row_ = (split_.pitch + split_.chunk - 1) / split_.chunk;
      const BlockRange range = block_range(split_.rows * chunks_per_row_, tiling.block_pieces);
      first_piece_ = range.start;
      pieces_ = range.length;
      if (pieces_ == 0) return;
      block_.first = 0;
      block_.rows = split_.rows;
    } else if (block_.rows == 0) {
      return;
    }
    // GM is seen whole, each row addressed by its layout; the last y copied ends a pitch after
    // its row's element d.
    const uint64_t last = split_.rows - 1;
    input_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(input),
                           gm_row_offset(input_rows_, last) + split_.row_len + split_.pitch);
    out_gm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(out),
                            gm_row_offset(out_rows_, last) + split_.pitch);
    const uint32_t lanes = Lanes(block_.tile_elems);
    pipe_.InitBuffer(x_in_, kBufferNum, lanes * sizeof(T));
    pipe_.InitBuffer(y_in_, kBufferNum, lanes * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, lanes * sizeof(T));
    xf_.Init(pipe_, lanes);
    yf_.Init(pipe_, lanes);
    of_.Init(pipe_, lanes);
    const GatedNeeds needs = gated_needs(op_);
    pipe_.InitBuffer(scratch_, needs.scratch_tiles * lanes * sizeof(float));
    if (needs.masks > 0) pipe_.InitBuffer(mask_, lanes / 8);
  }

  __aicore__ inline void Process() {
    if (block_.chunked) {
      for (uint64_t piece = first_piece_; piece < first_piece_ + pieces_; ++piece) {
        const uint32_t offset = static_cast<uint32_t>(piece % chunks_per_row_) * split_.chunk;
        Tile(piece / chunks_per_row_, 1, offset, chunk_copied(split_, offset));
      }
      return;
    }
    for (uint64_t first = 0; first < block_.rows; first += block_.tile_rows) {
      Tile(first, block_.TileRowsAt(first), 0, split_.pitch);
    }
  }

 private:
  // Elements the vector unit computes for `count`: whole 256-byte float repeats, since Compare
  // and Select take nothing less. The tail past `count` is scratch, never copied out.
  __aicore__ inline static uint32_t Lanes(uint32_t count) {
    return (count + kFloatRepeat - 1) / kFloatRepeat * kFloatRepeat;
  }

  // Out elements [offset, offset + cols) of `rows` rows from this core's row `first`, packed
  // `cols` apart in UB.
  __aicore__ inline void Tile(uint64_t first, uint32_t rows, uint32_t offset, uint32_t cols) {
    const uint32_t count = rows * cols;
    const uint32_t lanes = Lanes(count);
    const uint64_t row = block_.first + first;
    copy_rows_in(x_in_, input_[offset], input_rows_, row, rows, cols, cols);
    copy_rows_in(y_in_, input_[split_.row_len + offset], input_rows_, row, rows, cols, cols);
    LocalTensor<T> x = x_in_.DeQue<T>();
    LocalTensor<T> y = y_in_.DeQue<T>();
    LocalTensor<T> o = out_.AllocTensor<T>();
    const LocalTensor<float> xf = xf_.View(x, lanes);
    const LocalTensor<float> yf = yf_.View(y, lanes);
    const LocalTensor<float> of = of_.View(o);
    Activate(of, xf, lanes);
    PipeBarrier<PIPE_V>();
    if constexpr (kWide) {  // vLLM rounds the activation to the dtype before the product
      narrow(o, of, lanes);
      PipeBarrier<PIPE_V>();
      widen(of, o, lanes);
    }
    Mul(of, of, yf, lanes);
    of_.Emit(out_, o, lanes);
    x_in_.FreeTensor(x);
    y_in_.FreeTensor(y);
    copy_rows_out(out_gm_[offset], out_rows_, row, rows, cols, cols, out_);
  }

  __aicore__ inline void Activate(const LocalTensor<float>& dst, const LocalTensor<float>& x,
                                  uint32_t n) {
    const uint32_t lanes = Lanes(block_.tile_elems);
    LocalTensor<float> scratch = scratch_.Get<float>();
    UnaryWork work;
    work.s0 = scratch;
    if (op_ == GatedOp::GeluErf) {
      work.s1 = scratch[lanes];
      work.s2 = scratch[2 * lanes];
      work.m0 = mask_.Get<uint8_t>();
      gelu_erf_float(dst, x, work, n);
    } else if (op_ == GatedOp::GeluTanh) {
      gelu_tanh_float(dst, x, work, n);
    } else {
      silu_float(dst, x, work, n);
    }
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> x_in_;
  TQue<TPosition::VECIN, 1> y_in_;
  TQue<TPosition::VECOUT, 1> out_;
  ComputeIn<T> xf_;
  ComputeIn<T> yf_;
  ComputeOut<T> of_;
  TBuf<TPosition::VECCALC> scratch_;
  TBuf<TPosition::VECCALC> mask_;
  GlobalTensor<T> input_;
  GlobalTensor<T> out_gm_;
  RowSplit split_{};
  GmRows input_rows_{};
  GmRows out_rows_{};
  RowBlock block_;
  uint64_t chunks_per_row_ = 0;  // chunked rows: the (row, chunk) pieces of this core
  uint64_t first_piece_ = 0;
  uint64_t pieces_ = 0;
  GatedOp op_ = GatedOp::Silu;
};

template <typename T>
__aicore__ inline void run_gated(GM_ADDR input, GM_ADDR out, GM_ADDR tiling) {
  run_kernel<GatedKernel<T>>(load_tiling<GatedTiling>(tiling), input, out);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_GATED_RUN kiln::ascend::run_gated
KILN_ASCEND_DEFINE_KERNELS(KILN_GATED)
