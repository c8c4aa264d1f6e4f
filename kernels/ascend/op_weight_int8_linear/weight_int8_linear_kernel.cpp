// Ascend C weight-only int8 linear kernel on the vector unit: y[t, o] = (sum_i x[t, i] w[o, i])
// * scales[o] + bias[o], the dot products, scale and bias in float, rounded once to y's dtype.
//
// Each core owns tiles of output channels. For `token_tile` rows of x at a time it holds those
// rows' chunk of k in float, then streams each of its weight rows' chunk in once (int8 ->
// half -> float: exact), multiplies it with every held row of x and sums each product as a
// balanced tree; the partial sums add up on the scalar unit across the chunks. Decode (a few
// rows of x) is bound by reading the weight, which this reads once per token tile, as int8.
#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_weight_int8_linear/weight_int8_linear_kernels.h"
#include "kernels/ascend/op_weight_int8_linear/weight_int8_linear_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // weight chunk i+1 copies in while chunk i multiplies

template <typename T>
class WeightInt8LinearKernel {
  static constexpr bool kWide = !std::is_same_v<T, float>;

 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR weight, GM_ADDR scales, GM_ADDR bias, GM_ADDR y,
                              const WeightInt8LinearTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.tiles, t_.block_tiles);
    first_tile_ = range.start;
    tiles_ = static_cast<uint32_t>(range.length);
    if (tiles_ == 0) return;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), t_.m * t_.pitch);
    w_.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t*>(weight), uint64_t{t_.n} * t_.pitch);
    const uint64_t channels = uint64_t{t_.tiles} * t_.channel_tile;
    scales_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(scales), channels);
    if (t_.has_bias != 0) bias_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias), channels);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), t_.m * t_.y_pitch);
    pipe_.InitBuffer(w_in_, kBufferNum, t_.chunk);
    if constexpr (kWide) pipe_.InitBuffer(x_in_, 1, t_.chunk * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, t_.channel_tile * sizeof(T));
    yc_.Init(pipe_, t_.channel_tile);
    pipe_.InitBuffer(xf_, t_.token_tile * t_.chunk * sizeof(float));
    pipe_.InitBuffer(wh_, t_.chunk * sizeof(half));
    pipe_.InitBuffer(wf_, t_.chunk * sizeof(float));
    pipe_.InitBuffer(prod_, t_.chunk * sizeof(float));
    pipe_.InitBuffer(work_, reduce_work_bytes(kFloatRepeat));
    pipe_.InitBuffer(acc_, t_.token_tile * t_.channel_tile * sizeof(float));
  }

  __aicore__ inline void Process() {
    for (uint32_t tile = 0; tile < tiles_; ++tile) {
      const uint32_t first = (first_tile_ + tile) * t_.channel_tile;
      const uint32_t channels = t_.n - first < t_.channel_tile ? t_.n - first : t_.channel_tile;
      for (uint64_t row = 0; row < t_.m; row += t_.token_tile) {
        const uint32_t rows =
            static_cast<uint32_t>(t_.m - row < t_.token_tile ? t_.m - row : t_.token_tile);
        Tile(row, rows, first, channels);
      }
    }
  }

 private:
  // y[row .. row + rows, first .. first + channels).
  __aicore__ inline void Tile(uint64_t row, uint32_t rows, uint32_t first, uint32_t channels) {
    LocalTensor<float> acc = acc_.Get<float>();
    for (uint32_t i = 0; i < rows * t_.channel_tile; ++i) acc.SetValue(i, 0.0f);
    for (uint32_t offset = 0; offset < t_.pitch; offset += t_.chunk) {
      const uint32_t count = t_.pitch - offset < t_.chunk ? t_.pitch - offset : t_.chunk;
      LoadRows(row, rows, offset, count);
      for (uint32_t c = 0; c < channels; ++c) {
        const LocalTensor<float> w = LoadWeight(first + c, offset, count);
        for (uint32_t r = 0; r < rows; ++r) {
          Mul(prod_.Get<float>(), xf_.Get<float>()[r * t_.chunk], w, static_cast<int32_t>(count));
          PipeBarrier<PIPE_V>();
          const float part = tree_sum(prod_.Get<float>(), work_.Get<float>(), count);
          const uint32_t at = r * t_.channel_tile + c;
          acc.SetValue(at, acc.GetValue(at) + part);
        }
      }
    }
    for (uint32_t r = 0; r < rows; ++r) Emit(row + r, acc[r * t_.channel_tile], first, channels);
  }

  // Rows [row, row + rows) of x, elements [offset, offset + count), into xf_ as float.
  __aicore__ inline void LoadRows(uint64_t row, uint32_t rows, uint32_t offset, uint32_t count) {
    LocalTensor<float> xf = xf_.Get<float>();
    // Float rows land in xf_ directly: the products of the previous chunk must have read it.
    if constexpr (!kWide) wait_pipe<HardEvent::V_MTE2>();
    for (uint32_t r = 0; r < rows; ++r) {
      const GlobalTensor<T> src = x_[(row + r) * t_.pitch + offset];
      if constexpr (kWide) {
        copy_in(x_in_, src, count);
        LocalTensor<T> x = x_in_.template DeQue<T>();
        widen(xf[r * t_.chunk], x, count);
        x_in_.FreeTensor(x);
      } else {
        DataCopy(xf[r * t_.chunk], src, count);
      }
    }
    if constexpr (!kWide) wait_pipe<HardEvent::MTE2_V>();
  }

  // Weight row `channel`, elements [offset, offset + count), as float.
  __aicore__ inline LocalTensor<float> LoadWeight(uint32_t channel, uint32_t offset,
                                                  uint32_t count) {
    copy_in(w_in_, w_[uint64_t{channel} * t_.pitch + offset], count);
    LocalTensor<int8_t> w = w_in_.template DeQue<int8_t>();
    LocalTensor<half> wh = wh_.Get<half>();
    Cast(wh, w, RoundMode::CAST_NONE, count);
    PipeBarrier<PIPE_V>();
    w_in_.FreeTensor(w);
    LocalTensor<float> wf = wf_.Get<float>();
    widen(wf, wh, count);
    return wf;
  }

  // y[row, first .. first + channels) = acc * scales + bias, rounded once; the rest of the
  // tile's 32-byte blocks (y's row padding) gets zeros.
  __aicore__ inline void Emit(uint64_t row, const LocalTensor<float>& acc, uint32_t first,
                              uint32_t channels) {
    constexpr uint32_t kBlock = 32 / sizeof(T);
    const uint32_t copied = (channels + kBlock - 1) / kBlock * kBlock;
    LocalTensor<T> y = out_.template AllocTensor<T>();
    LocalTensor<float> values = yc_.View(y);
    for (uint32_t c = 0; c < copied; ++c) {
      float value = 0.0f;
      if (c < channels) {
        value = acc.GetValue(c) * scales_.GetValue(first + c);
        if (t_.has_bias != 0) value += bias_.GetValue(first + c);
      }
      values.SetValue(c, value);
    }
    yc_.EmitScalar(out_, y, copied);
    copy_out(y_[row * t_.y_pitch + first], out_, copied);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> w_in_;
  TQue<TPosition::VECIN, 1> x_in_;
  TQue<TPosition::VECOUT, 1> out_;
  ComputeOut<T> yc_;
  TBuf<TPosition::VECCALC> xf_;
  TBuf<TPosition::VECCALC> wh_;
  TBuf<TPosition::VECCALC> wf_;
  TBuf<TPosition::VECCALC> prod_;
  TBuf<TPosition::VECCALC> work_;
  TBuf<TPosition::VECCALC> acc_;
  GlobalTensor<T> x_;
  GlobalTensor<int8_t> w_;
  GlobalTensor<float> scales_;
  GlobalTensor<float> bias_;
  GlobalTensor<T> y_;
  WeightInt8LinearTiling t_{};
  uint32_t first_tile_ = 0;
  uint32_t tiles_ = 0;
};

template <typename T>
__aicore__ inline void run_weight_int8_linear(GM_ADDR x, GM_ADDR weight, GM_ADDR scales,
                                              GM_ADDR bias, GM_ADDR y, GM_ADDR tiling) {
  run_kernel<WeightInt8LinearKernel<T>>(load_tiling<WeightInt8LinearTiling>(tiling), x, weight,
                                        scales, bias, y);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_WEIGHT_INT8_LINEAR_RUN kiln::ascend::run_weight_int8_linear
KILN_ASCEND_DEFINE_KERNELS(KILN_WEIGHT_INT8_LINEAR)
