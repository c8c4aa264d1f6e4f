// Ascend C last-dim reduction kernel (sum, mean, amax): each core reduces whole rows.
//
// Rows that fit in UB go several to a tile (CopyIn -> reduce each row -> CopyOut of one 32-byte
// block per row); a longer row goes through UB in chunks whose partial results combine on the
// scalar unit. Floating rows reduce in float (half/bfloat16 tiles are widened first) and sums
// run as balanced trees; int32 amax folds its rows with Max.
#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_reduce/reduce_kernels.h"
#include "kernels/ascend/op_reduce/reduce_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i reduces

// One row's (or chunk's) result before it is finished: a sum or a maximum, and whether a NaN
// was seen (the vector unit's ReduceMax does not promise to return it; torch's amax does).
template <typename C>
struct Partial {
  C value;
  bool nan;
};

template <typename T>
class ReduceKernel {
  using C = std::conditional_t<std::is_same_v<T, int32_t>, int32_t, float>;
  static constexpr uint32_t kOutPitch = kReduceOutPitchBytes / sizeof(T);

 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ReduceTiling& tiling) {
    op_ = static_cast<ReduceOp>(tiling.op);
    split_ = tiling.split;
    block_ = row_block(split_);
    if (block_.rows == 0) return;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + block_.first * split_.pitch,
                       block_.rows * split_.pitch);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + block_.first * kOutPitch,
                       block_.rows * kOutPitch);
    // A float row may be read up to one repeat past its end (whole-repeat Compare).
    pipe_.InitBuffer(in_, kBufferNum, (block_.tile_elems + kFloatRepeat) * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, block_.tile_rows * kReduceOutPitchBytes);
    xc_.Init(pipe_, block_.tile_elems + kFloatRepeat);
    yc_.Init(pipe_, block_.tile_rows * kOutPitch);
    pipe_.InitBuffer(work_, reduce_work_bytes(block_.row_elems));
    if constexpr (!std::is_same_v<C, int32_t>) {
      if (op_ == ReduceOp::Amax) {
        const uint32_t lanes = block_.row_elems + kFloatRepeat;
        pipe_.InitBuffer(mask_, (lanes / 8 + 31) / 32 * 32);
        pipe_.InitBuffer(flags_, lanes * sizeof(float));
        pipe_.InitBuffer(zeros_, lanes * sizeof(float));
        Duplicate(zeros_.Get<float>(), 0.0f, static_cast<int32_t>(lanes));
      }
    }
  }

  __aicore__ inline void Process() {
    if (block_.rows == 0) return;
    if (block_.chunked) {
      for (uint64_t row = 0; row < block_.rows; ++row) LongRow(row);
      return;
    }
    for (uint64_t first = 0; first < block_.rows; first += block_.tile_rows) {
      const uint32_t n = block_.TileRowsAt(first);
      copy_in(in_, x_[first * split_.pitch], n * split_.pitch);
      LocalTensor<T> x = in_.DeQue<T>();
      const LocalTensor<C> data = xc_.View(x, n * split_.pitch);
      LocalTensor<T> y = out_.AllocTensor<T>();
      const LocalTensor<C> results = yc_.View(y);
      for (uint32_t r = 0; r < n; ++r) {
        results.SetValue(r * kOutPitch, Finish(Segment(data[r * split_.pitch], split_.row_len)));
      }
      in_.FreeTensor(x);
      yc_.EmitScalar(out_, y, n * kOutPitch);
      copy_out(y_[first * kOutPitch], out_, n * kOutPitch);
    }
  }

 private:
  // A row longer than UB: chunks of the padded row, their partial results combined in order.
  __aicore__ inline void LongRow(uint64_t row) {
    Partial<C> total = Start();
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = chunk_copied(split_, offset);
      copy_in(in_, x_[row * split_.pitch + offset], count);
      LocalTensor<T> x = in_.DeQue<T>();
      const Partial<C> part = Segment(xc_.View(x, count), chunk_valid(split_, offset));
      in_.FreeTensor(x);
      Combine(total, part);
    }
    LocalTensor<T> y = out_.AllocTensor<T>();
    yc_.View(y).SetValue(0, Finish(total));
    yc_.EmitScalar(out_, y, kOutPitch);
    copy_out(y_[row * kOutPitch], out_, kOutPitch);
  }

  __aicore__ inline Partial<C> Start() const {
    if constexpr (std::is_same_v<C, int32_t>) {
      return {static_cast<int32_t>(-2147483647 - 1), false};
    } else {
      return {op_ == ReduceOp::Amax ? -__builtin_inff() : 0.0f, false};
    }
  }

  __aicore__ inline void Combine(Partial<C>& total, const Partial<C>& part) const {
    total.nan = total.nan || part.nan;
    if (op_ == ReduceOp::Amax) {
      if (part.value > total.value) total.value = part.value;
    } else {
      total.value += part.value;
    }
  }

  __aicore__ inline C Finish(const Partial<C>& total) const {
    if constexpr (std::is_same_v<C, int32_t>) {
      return total.value;
    } else {
      if (total.nan) return __builtin_nanf("");
      if (op_ == ReduceOp::Mean) return total.value / static_cast<float>(split_.row_len);
      return total.value;
    }
  }

  // The op over data[0, n), n >= 1. Sums destroy the data.
  __aicore__ inline Partial<C> Segment(const LocalTensor<C>& data, uint32_t n) {
    if constexpr (std::is_same_v<C, int32_t>) {
      return {FoldMax(data, n), false};
    } else {
      LocalTensor<float> work = work_.Get<float>();
      if (op_ != ReduceOp::Amax) return {tree_sum(data, work, n), false};
      const float largest = row_max(data, work, n);
      // flags[i] = 1 where data[i] is NaN: x == x fails only for NaN. Compare and Select run
      // over whole repeats; lanes past n are never reduced.
      const uint32_t lanes = (n + kFloatRepeat - 1) / kFloatRepeat * kFloatRepeat;
      LocalTensor<uint8_t> mask = mask_.Get<uint8_t>();
      LocalTensor<float> flags = flags_.Get<float>();
      Compare(mask, data, data, CMPMODE::EQ, lanes);
      PipeBarrier<PIPE_V>();
      Select(flags, mask, zeros_.Get<float>(), 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
      PipeBarrier<PIPE_V>();
      return {largest, row_max(flags, work, n) > 0.0f};
    }
  }

  // int32 maximum: the upper half folded onto the lower half with Max down to one 32-byte
  // block, then the last elements on the scalar unit. Destroys the data.
  __aicore__ inline int32_t FoldMax(const LocalTensor<int32_t>& data, uint32_t n) {
    while (n > 8) {
      const uint32_t upper = ((n + 1) / 2 + 7) / 8 * 8;
      Max(data, data, data[upper], static_cast<int32_t>(n - upper));
      PipeBarrier<PIPE_V>();
      n = upper;
    }
    wait_pipe<HardEvent::V_S>();
    int32_t best = data.GetValue(0);
    for (uint32_t i = 1; i < n; ++i) {
      const int32_t value = data.GetValue(i);
      if (value > best) best = value;
    }
    return best;
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  ComputeIn<T, C> xc_;
  ComputeOut<T, C> yc_;  // one result per row, at the start of its 32-byte block
  TBuf<TPosition::VECCALC> work_;
  TBuf<TPosition::VECCALC> mask_;
  TBuf<TPosition::VECCALC> flags_;
  TBuf<TPosition::VECCALC> zeros_;
  GlobalTensor<T> x_;
  GlobalTensor<T> y_;
  ReduceOp op_ = ReduceOp::Sum;
  RowSplit split_{};
  RowBlock block_;
};

template <typename T>
__aicore__ inline void run_reduce(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  run_kernel<ReduceKernel<T>>(load_tiling<ReduceTiling>(tiling), x, y);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_REDUCE_RUN kiln::ascend::run_reduce
KILN_ASCEND_DEFINE_KERNELS(KILN_REDUCE)
