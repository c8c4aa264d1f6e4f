// Ascend C RMS norm kernel over the last dim (kiln::rms_norm, kiln::fused_add_rms_norm): each
// core normalizes whole rows, in vLLM's arithmetic.
//
// Per row, in float: s = x, or round(x + residual) (written out as the new residual) when fused;
// rstd = 1 / sqrt(sum(s^2) / n + eps), a balanced tree sum; y = round(s * rstd) * weight, the
// normalized value rounded to the dtype before the weight multiplies it. Rows that fit in UB go
// several to a tile with the weight resident in UB; a longer row goes through UB in chunks: the
// sum of squares, then the output (the residual add runs again there and rounds the same way).
// Each tensor's rows lie in GM as its GmRows says (a row view where it lies): the rows of a tile
// move in one strided DataCopy per evenly spaced run.
#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_rms_norm/rms_norm_kernels.h"
#include "kernels/ascend/op_rms_norm/rms_norm_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i computes

template <typename T>
class RmsNormKernel {
  static constexpr bool kWide = !std::is_same_v<T, float>;

 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR residual, GM_ADDR weight, GM_ADDR y, GM_ADDR sum,
                              const RmsNormTiling& tiling) {
    split_ = tiling.split;
    eps_ = tiling.eps;
    fused_ = tiling.fused != 0;
    block_ = row_block(split_);
    if (block_.rows == 0) return;
    x_rows_ = tiling.x;
    y_rows_ = tiling.y;
    residual_rows_ = tiling.residual;
    sum_rows_ = tiling.sum;
    // GM is seen whole, each row addressed by its layout.
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), Extent(x_rows_));
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), Extent(y_rows_));
    weight_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(weight), split_.pitch);
    pipe_.InitBuffer(in_, kBufferNum, block_.tile_elems * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, block_.tile_elems * sizeof(T));
    xf_.Init(pipe_, block_.tile_elems);
    yf_.Init(pipe_, block_.tile_elems);
    if (fused_) {
      residual_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(residual), Extent(residual_rows_));
      sum_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(sum), Extent(sum_rows_));
      pipe_.InitBuffer(residual_in_, kBufferNum, block_.tile_elems * sizeof(T));
      pipe_.InitBuffer(sum_out_, kBufferNum, block_.tile_elems * sizeof(T));
      rf_.Init(pipe_, block_.tile_elems);
    }
    pipe_.InitBuffer(weight_in_, kBufferNum, block_.row_elems * sizeof(T));
    wf_.Init(pipe_, block_.row_elems);
    pipe_.InitBuffer(fold_, block_.row_elems * sizeof(float));
    pipe_.InitBuffer(work_, reduce_work_bytes(kFloatRepeat));  // sums end on one repeat
  }

  __aicore__ inline void Process() {
    if (block_.rows == 0) return;
    if (block_.chunked) {
      for (uint64_t row = 0; row < block_.rows; ++row) LongRow(row);
      return;
    }
    LoadWeight(0, split_.pitch);  // resident for every tile of this core
    for (uint64_t first = 0; first < block_.rows; first += block_.tile_rows) {
      const uint32_t n = block_.TileRowsAt(first);
      const uint32_t count = n * split_.pitch;
      const uint64_t row = block_.first + first;
      CopyIn(row, n, 0, split_.pitch);
      LocalTensor<T> x;
      LocalTensor<T> sum;
      const LocalTensor<float> s = TakeInput(count, x, sum);
      LocalTensor<T> y = out_.AllocTensor<T>();
      const LocalTensor<float> yf = yf_.View(y);
      for (uint32_t r = 0; r < n; ++r) {
        const LocalTensor<float> row = s[r * split_.pitch];
        const float rstd = Rstd(SumOfSquares(row, split_.row_len));
        Muls(yf[r * split_.pitch], row, rstd, split_.row_len);
      }
      PipeBarrier<PIPE_V>();
      RoundToDtype(y, yf, count);
      for (uint32_t r = 0; r < n; ++r) {
        Mul(yf[r * split_.pitch], yf[r * split_.pitch], weight_f_, split_.row_len);
      }
      Finish(row, n, 0, split_.pitch, x, y, sum);
    }
    ReleaseWeight();
  }

 private:
  // A row longer than UB: pass 1 sums the squares chunk by chunk, pass 2 writes the outputs.
  __aicore__ inline void LongRow(uint64_t block_row) {
    const uint64_t row = block_.first + block_row;
    float squares = 0.0f;
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = chunk_copied(split_, offset);
      CopyIn(row, 1, offset, count);
      LocalTensor<T> x;
      LocalTensor<T> sum;
      const LocalTensor<float> s = TakeInput(count, x, sum);
      squares += SumOfSquares(s, chunk_valid(split_, offset));
      in_.FreeTensor(x);
      if (fused_) sum_out_.FreeTensor(sum);  // pass 2 writes the sum
    }
    const float rstd = Rstd(squares);
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = chunk_copied(split_, offset);
      const uint32_t n = chunk_valid(split_, offset);
      LoadWeight(offset, count);
      CopyIn(row, 1, offset, count);
      LocalTensor<T> x;
      LocalTensor<T> sum;
      const LocalTensor<float> s = TakeInput(count, x, sum);
      LocalTensor<T> y = out_.AllocTensor<T>();
      const LocalTensor<float> yf = yf_.View(y);
      Muls(yf, s, rstd, n);
      PipeBarrier<PIPE_V>();
      RoundToDtype(y, yf, count);
      Mul(yf, yf, weight_f_, n);
      Finish(row, 1, offset, count, x, y, sum);
      ReleaseWeight();
    }
  }

  // Elements of a tensor laid out as `rows` up to the end of its last row as UB copies it.
  __aicore__ inline uint64_t Extent(const GmRows& rows) const {
    return gm_row_offset(rows, split_.rows - 1) + split_.pitch;
  }

  // GM -> UB: elements [offset, offset + cols) of `n` rows of x from `row` (and of the residual
  // when fused), rows a pitch apart in UB.
  __aicore__ inline void CopyIn(uint64_t row, uint32_t n, uint32_t offset, uint32_t cols) {
    copy_rows_in(in_, x_[offset], x_rows_, row, n, cols, split_.pitch);
    if (fused_) {
      copy_rows_in(residual_in_, residual_[offset], residual_rows_, row, n, cols, split_.pitch);
    }
  }

  // The tiles CopyIn queued, dequeued into `x` (and, when fused, the residual, freed here) and
  // s in float: x, or round(x + residual), which also fills `sum`, a fresh tile of sum_out_.
  __aicore__ inline LocalTensor<float> TakeInput(uint32_t count, LocalTensor<T>& x,
                                                 LocalTensor<T>& sum) {
    x = in_.DeQue<T>();
    LocalTensor<float> s = xf_.View(x, count);
    if (!fused_) return s;
    LocalTensor<T> residual = residual_in_.DeQue<T>();
    sum = sum_out_.AllocTensor<T>();
    if constexpr (kWide) {
      Add(s, s, rf_.View(residual, count), count);
      narrow(sum, s, count);
      PipeBarrier<PIPE_V>();
      widen(s, sum, count);  // the sum as stored is what gets normalized
    } else {
      Add(sum, x, residual, count);
      PipeBarrier<PIPE_V>();
      s = sum;
    }
    residual_in_.FreeTensor(residual);
    return s;
  }

  // sum(s[i]^2), i < n, in float.
  __aicore__ inline float SumOfSquares(const LocalTensor<float>& s, uint32_t n) {
    LocalTensor<float> fold = fold_.Get<float>();
    Mul(fold, s, s, n);
    PipeBarrier<PIPE_V>();
    return tree_sum(fold, work_.Get<float>(), n);
  }

  __aicore__ inline float Rstd(float squares) {
    const float mean = squares / static_cast<float>(split_.row_len);
    return 1.0f / vector_sqrt(work_.Get<float>(), mean + eps_);
  }

  // yf rounded to T and back (vLLM rounds x * rstd before the weight multiplies it); `y` is the
  // output tile, its bytes overwritten later.
  __aicore__ inline void RoundToDtype(const LocalTensor<T>& y, const LocalTensor<float>& yf,
                                      uint32_t count) {
    if constexpr (kWide) {
      narrow(y, yf, count);
      PipeBarrier<PIPE_V>();
      widen(yf, y, count);
    }
  }

  // Queues the output (and the sum) of the rows CopyIn brought in and copies them out; frees x.
  __aicore__ inline void Finish(uint64_t row, uint32_t n, uint32_t offset, uint32_t cols,
                                LocalTensor<T>& x, LocalTensor<T>& y, LocalTensor<T>& sum) {
    yf_.Emit(out_, y, n * cols);
    in_.FreeTensor(x);
    copy_rows_out(y_[offset], y_rows_, row, n, cols, split_.pitch, out_);
    if (fused_) {
      sum_out_.EnQue(sum);
      copy_rows_out(sum_[offset], sum_rows_, row, n, cols, split_.pitch, sum_out_);
    }
  }

  // Weight elements [offset, offset + count) into UB as a float view. A 16-bit weight's queue
  // buffer is free once widened; a float one is its own view and stays in the queue while in use
  // (ReleaseWeight).
  __aicore__ inline void LoadWeight(uint32_t offset, uint32_t count) {
    copy_in(weight_in_, weight_[offset], count);
    weight_q_ = weight_in_.DeQue<T>();
    weight_f_ = wf_.View(weight_q_, count);
    if constexpr (kWide) weight_in_.FreeTensor(weight_q_);
  }

  __aicore__ inline void ReleaseWeight() {
    if constexpr (!kWide) weight_in_.FreeTensor(weight_q_);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECIN, 1> residual_in_;
  TQue<TPosition::VECIN, 1> weight_in_;
  TQue<TPosition::VECOUT, 1> out_;
  TQue<TPosition::VECOUT, 1> sum_out_;
  ComputeIn<T> xf_;
  ComputeIn<T> rf_;
  ComputeIn<T> wf_;
  ComputeOut<T> yf_;
  TBuf<TPosition::VECCALC> fold_;
  TBuf<TPosition::VECCALC> work_;
  GlobalTensor<T> x_;
  GlobalTensor<T> residual_;
  GlobalTensor<T> weight_;
  GlobalTensor<T> y_;
  GlobalTensor<T> sum_;
  LocalTensor<T> weight_q_;
  LocalTensor<float> weight_f_;
  RowSplit split_{};
  GmRows x_rows_{};
  GmRows residual_rows_{};
  GmRows y_rows_{};
  GmRows sum_rows_{};
  RowBlock block_;
  float eps_ = 0.0f;
  bool fused_ = false;
};

template <typename T>
__aicore__ inline void run_rms_norm(GM_ADDR x, GM_ADDR residual, GM_ADDR weight, GM_ADDR y,
                                    GM_ADDR sum, GM_ADDR tiling) {
  run_kernel<RmsNormKernel<T>>(load_tiling<RmsNormTiling>(tiling), x, residual, weight, y, sum);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_RMS_NORM_RUN kiln::ascend::run_rms_norm
KILN_ASCEND_DEFINE_KERNELS(KILN_RMS_NORM)
