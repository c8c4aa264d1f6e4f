// Ascend C softmax / log_softmax kernel over the last dim: each core takes whole rows.
//
// Per row, in float: m = max(x); e = exp(x - m); s = sum(e) (a balanced tree);
// softmax = e * (1/s), log_softmax = (x - m) - ln(s). Rows that fit in UB go several to a tile;
// a longer row goes through UB in chunks, in three passes (max, sum, result). NaN needs no
// special case: a NaN element makes s NaN, and with it the whole row, as in torch.
#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_softmax/softmax_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i computes

template <typename T>
class SoftmaxKernel {
  static constexpr bool kWide = !std::is_same_v<T, float>;

 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxTiling& tiling) {
    log_ = tiling.log != 0;
    split_ = tiling.split;
    const BlockRange range = block_range(split_.rows, split_.block_rows);
    rows_ = range.length;
    if (rows_ == 0) return;
    chunked_ = split_.tile_rows == 0;
    tile_rows_ = chunked_ ? 1 : split_.tile_rows;
    const uint32_t tile_elems = chunked_ ? split_.chunk : tile_rows_ * split_.pitch;
    const uint32_t row_elems = chunked_ ? split_.chunk : split_.pitch;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + range.start * split_.pitch,
                       rows_ * split_.pitch);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + range.start * split_.pitch,
                       rows_ * split_.pitch);
    pipe_.InitBuffer(in_, kBufferNum, tile_elems * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, tile_elems * sizeof(T));
    if constexpr (kWide) {
      pipe_.InitBuffer(wide_in_, tile_elems * sizeof(float));
      pipe_.InitBuffer(wide_out_, tile_elems * sizeof(float));
    }
    pipe_.InitBuffer(fold_, row_elems * sizeof(float));
    pipe_.InitBuffer(work_, reduce_work_bytes(row_elems));
  }

  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    if (chunked_) {
      for (uint64_t row = 0; row < rows_; ++row) LongRow(row);
      return;
    }
    for (uint64_t first = 0; first < rows_; first += tile_rows_) {
      const uint32_t n =
          static_cast<uint32_t>(rows_ - first < tile_rows_ ? rows_ - first : tile_rows_);
      const uint32_t count = n * split_.pitch;
      CopyIn(first * split_.pitch, count);
      LocalTensor<T> x = in_.DeQue<T>();
      LocalTensor<T> y = out_.AllocTensor<T>();
      const LocalTensor<float> xf = Widened(x, count);
      const LocalTensor<float> yf = Result(y);
      for (uint32_t r = 0; r < n; ++r) Row(xf[r * split_.pitch], yf[r * split_.pitch]);
      Emit(y, count);
      in_.FreeTensor(x);
      CopyOut(first * split_.pitch, count);
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
      CopyIn(base + offset, Copied(offset));
      LocalTensor<T> x = in_.DeQue<T>();
      const float m = row_max(Widened(x, Copied(offset)), work, Valid(offset));
      in_.FreeTensor(x);
      if (m > largest) largest = m;
    }
    float sum = 0.0f;
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      CopyIn(base + offset, Copied(offset));
      LocalTensor<T> x = in_.DeQue<T>();
      const uint32_t n = Valid(offset);
      Adds(fold, Widened(x, Copied(offset)), -largest, n);
      PipeBarrier<PIPE_V>();
      Exp(fold, fold, n);
      PipeBarrier<PIPE_V>();
      in_.FreeTensor(x);
      sum += tree_sum(fold, work, n);
    }
    const float scale = log_ ? -vector_ln(work, sum) : 1.0f / sum;
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = Copied(offset);
      const uint32_t n = Valid(offset);
      CopyIn(base + offset, count);
      LocalTensor<T> x = in_.DeQue<T>();
      LocalTensor<T> y = out_.AllocTensor<T>();
      const LocalTensor<float> yf = Result(y);
      Adds(yf, Widened(x, count), -largest, n);
      PipeBarrier<PIPE_V>();
      if (log_) {
        Adds(yf, yf, scale, n);
      } else {
        Exp(yf, yf, n);
        PipeBarrier<PIPE_V>();
        Muls(yf, yf, scale, n);
      }
      Emit(y, count);
      in_.FreeTensor(x);
      CopyOut(base + offset, count);
    }
  }

  // Elements of the chunk at `offset` to move (whole 32-byte blocks) and to compute on.
  __aicore__ inline uint32_t Copied(uint32_t offset) const {
    return split_.pitch - offset < split_.chunk ? split_.pitch - offset : split_.chunk;
  }
  __aicore__ inline uint32_t Valid(uint32_t offset) const {
    return split_.row_len - offset < split_.chunk ? split_.row_len - offset : split_.chunk;
  }

  __aicore__ inline void CopyIn(uint64_t offset, uint32_t count) {
    LocalTensor<T> x = in_.AllocTensor<T>();
    DataCopy(x, x_[offset], count);
    in_.EnQue(x);
  }

  __aicore__ inline void CopyOut(uint64_t offset, uint32_t count) {
    LocalTensor<T> y = out_.DeQue<T>();
    DataCopy(y_[offset], y, count);
    out_.FreeTensor(y);
  }

  // The input tile as float: in place for float, widened for half/bfloat16.
  __aicore__ inline LocalTensor<float> Widened(const LocalTensor<T>& x, uint32_t count) {
    if constexpr (kWide) {
      LocalTensor<float> wide = wide_in_.Get<float>();
      widen(wide, x, count);
      return wide;
    } else {
      return x;
    }
  }

  // Where the float result goes: the output tile itself for float, else a float tile that
  // Emit narrows into it.
  __aicore__ inline LocalTensor<float> Result(const LocalTensor<T>& y) {
    if constexpr (kWide) {
      return wide_out_.Get<float>();
    } else {
      return y;
    }
  }

  __aicore__ inline void Emit(LocalTensor<T>& y, uint32_t count) {
    if constexpr (kWide) narrow(y, wide_out_.Get<float>(), count);
    out_.EnQue(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  TBuf<TPosition::VECCALC> wide_in_;
  TBuf<TPosition::VECCALC> wide_out_;
  TBuf<TPosition::VECCALC> fold_;
  TBuf<TPosition::VECCALC> work_;
  GlobalTensor<T> x_;
  GlobalTensor<T> y_;
  RowSplit split_{};
  uint64_t rows_ = 0;
  uint32_t tile_rows_ = 1;
  bool chunked_ = false;
  bool log_ = false;
};

template <typename T>
__aicore__ inline void run_softmax(GM_ADDR x, GM_ADDR y, const SoftmaxTiling& tiling) {
  SoftmaxKernel<T> kernel;
  kernel.Init(x, y, tiling);
  kernel.Process();
}

}  // namespace
}  // namespace kiln::ascend

// One entry per storage dtype; softmax or log_softmax comes with the tiling.
extern "C" __global__ __aicore__ void kiln_softmax_float(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const auto t = kiln::ascend::load_tiling<kiln::ascend::SoftmaxTiling>(tiling);
  kiln::ascend::run_softmax<float>(x, y, t);
}

extern "C" __global__ __aicore__ void kiln_softmax_half(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const auto t = kiln::ascend::load_tiling<kiln::ascend::SoftmaxTiling>(tiling);
  kiln::ascend::run_softmax<half>(x, y, t);
}

#if !defined(__NPU_ARCH__) || __NPU_ARCH__ == 2201
// bfloat16 exists on Ascend910B (arch 2201) only.
extern "C" __global__ __aicore__ void kiln_softmax_bf16(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const auto t = kiln::ascend::load_tiling<kiln::ascend::SoftmaxTiling>(tiling);
  kiln::ascend::run_softmax<bfloat16_t>(x, y, t);
}
#endif
