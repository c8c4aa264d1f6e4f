// Ascend C softmax / log_softmax kernel over the last dim: each core takes whole rows.
//
// Per row, in float: m = max(x); e = exp(x - m); s = sum(e) (a balanced tree);
// softmax = e * (1/s), log_softmax = (x - m) - ln(s). Rows that fit in UB go several to a tile;
// a longer row goes through UB in chunks, in three passes (max, sum, result). NaN needs no
// special case: a NaN element makes s NaN, and with it the whole row, as in torch.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_softmax/softmax_kernels.h"
#include "kernels/ascend/op_softmax/softmax_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i computes

template <typename T>
class SoftmaxKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxTiling& tiling) {
    log_ = tiling.log != 0;
    split_ = tiling.split;
    block_ = row_block(split_);
    if (block_.rows == 0) return;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + block_.first * split_.pitch,
                       block_.rows * split_.pitch);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + block_.first * split_.pitch,
                       block_.rows * split_.pitch);
    pipe_.InitBuffer(in_, kBufferNum, block_.tile_elems * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, block_.tile_elems * sizeof(T));
    xf_.Init(pipe_, block_.tile_elems);
    yf_.Init(pipe_, block_.tile_elems);
    pipe_.InitBuffer(fold_, block_.row_elems * sizeof(float));
    pipe_.InitBuffer(work_, reduce_work_bytes(block_.row_elems));
  }

  __aicore__ inline void Process() {
    if (block_.rows == 0) return;
    if (block_.chunked) {
      for (uint64_t row = 0; row < block_.rows; ++row) LongRow(row);
      return;
    }
    for (uint64_t first = 0; first < block_.rows; first += block_.tile_rows) {
      const uint32_t n = block_.TileRowsAt(first);
      const uint32_t count = n * split_.pitch;
      copy_in(in_, x_[first * split_.pitch], count);
      LocalTensor<T> x = in_.DeQue<T>();
      LocalTensor<T> y = out_.AllocTensor<T>();
      const LocalTensor<float> xf = xf_.View(x, count);
      const LocalTensor<float> yf = yf_.View(y);
      for (uint32_t r = 0; r < n; ++r) Row(xf[r * split_.pitch], yf[r * split_.pitch]);
      yf_.Emit(out_, y, count);
      in_.FreeTensor(x);
      copy_out(y_[first * split_.pitch], out_, count);
    }
  }

 private:
  // One row in UB: yf = softmax(xf) or log_softmax(xf) over row_len elements.
  __aicore__ inline void Row(const LocalTensor<float>& xf, const LocalTensor<float>& yf) {
    const uint32_t n = split_.row_len;
    LocalTensor<float> fold = fold_.Get<float>();
    LocalTensor<float> work = work_.Get<float>();
    const float largest = row_max(xf, work, n);
    Adds(yf, xf, -largest, n);
    PipeBarrier<PIPE_V>();
    if (log_) {
      Exp(fold, yf, n);
      PipeBarrier<PIPE_V>();
      const float log_sum = vector_ln(work, tree_sum(fold, work, n));
      Adds(yf, yf, -log_sum, n);
    } else {
      Exp(yf, yf, n);
      PipeBarrier<PIPE_V>();
      Adds(fold, yf, 0.0f, n);
      PipeBarrier<PIPE_V>();
      const float sum = tree_sum(fold, work, n);
      Muls(yf, yf, 1.0f / sum, n);
    }
    PipeBarrier<PIPE_V>();
  }

  // A row longer than UB, in chunks: pass 1 finds the max, pass 2 the sum, pass 3 writes.
  __aicore__ inline void LongRow(uint64_t row) {
    LocalTensor<float> fold = fold_.Get<float>();
    LocalTensor<float> work = work_.Get<float>();
    const uint64_t base = row * split_.pitch;
    float largest = -__builtin_inff();
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = chunk_copied(split_, offset);
      copy_in(in_, x_[base + offset], count);
      LocalTensor<T> x = in_.DeQue<T>();
      const float m = row_max(xf_.View(x, count), work, chunk_valid(split_, offset));
      in_.FreeTensor(x);
      if (m > largest) largest = m;
    }
    float sum = 0.0f;
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = chunk_copied(split_, offset);
      const uint32_t n = chunk_valid(split_, offset);
      copy_in(in_, x_[base + offset], count);
      LocalTensor<T> x = in_.DeQue<T>();
      Adds(fold, xf_.View(x, count), -largest, n);
      PipeBarrier<PIPE_V>();
      Exp(fold, fold, n);
      PipeBarrier<PIPE_V>();
      in_.FreeTensor(x);
      sum += tree_sum(fold, work, n);
    }
    const float scale = log_ ? -vector_ln(work, sum) : 1.0f / sum;
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = chunk_copied(split_, offset);
      const uint32_t n = chunk_valid(split_, offset);
      copy_in(in_, x_[base + offset], count);
      LocalTensor<T> x = in_.DeQue<T>();
      LocalTensor<T> y = out_.AllocTensor<T>();
      const LocalTensor<float> yf = yf_.View(y);
      Adds(yf, xf_.View(x, count), -largest, n);
      PipeBarrier<PIPE_V>();
      if (log_) {
        Adds(yf, yf, scale, n);
      } else {
        Exp(yf, yf, n);
        PipeBarrier<PIPE_V>();
        Muls(yf, yf, scale, n);
      }
      yf_.Emit(out_, y, count);
      in_.FreeTensor(x);
      copy_out(y_[base + offset], out_, count);
    }
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  ComputeIn<T> xf_;   // x in float
  ComputeOut<T> yf_;  // y in float
  TBuf<TPosition::VECCALC> fold_;
  TBuf<TPosition::VECCALC> work_;
  GlobalTensor<T> x_;
  GlobalTensor<T> y_;
  RowSplit split_{};
  RowBlock block_;
  bool log_ = false;
};

template <typename T>
__aicore__ inline void run_softmax(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  run_kernel<SoftmaxKernel<T>>(load_tiling<SoftmaxTiling>(tiling), x, y);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_SOFTMAX_RUN kiln::ascend::run_softmax
KILN_ASCEND_DEFINE_KERNELS(KILN_SOFTMAX)
