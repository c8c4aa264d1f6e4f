// Ascend C inference batch norm kernel: each core transforms whole rows (a part of one channel,
// batch_norm_tiling.h) with their channel's affine map.
//
// Per channel, once per core on the vector unit: scale = weight / sqrt(var + eps). Per row, in
// float: y = (x - mean) * scale + bias, which is closest to torch's fused x * scale + (bias -
// mean * scale). Where var + eps == 0 makes scale infinite, the forms part (NaN and -inf against
// +-inf), and the row takes torch's. Rows that fit go
// several to a UB tile; a longer row goes through UB in chunks.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_batch_norm/batch_norm_kernels.h"
#include "kernels/ascend/op_batch_norm/batch_norm_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i computes

// Rows of the parameter array (batch_norm_tiling.h).
constexpr uint32_t kMeanRow = 0;
constexpr uint32_t kVarRow = 1;    // becomes sqrt(var + eps)
constexpr uint32_t kScaleRow = 2;  // weight, becomes weight / sqrt(var + eps)
constexpr uint32_t kBiasRow = 3;

// T: input/output storage type.
template <typename T>
class BatchNormKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR params, GM_ADDR y, const BatchNormTiling& tiling) {
    split_ = tiling.split;
    channels_ = tiling.channels;
    rows_per_channel_ = tiling.rows_per_channel;
    channel_pitch_ = tiling.channel_pitch;
    eps_ = tiling.eps;
    block_ = row_block(split_);
    if (block_.rows == 0) return;
    const uint64_t first = block_.first;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + first * split_.pitch,
                       block_.rows * split_.pitch);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + first * split_.pitch,
                       block_.rows * split_.pitch);
    params_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(params),
                            kBatchNormParamRows * channel_pitch_);
    pipe_.InitBuffer(in_, kBufferNum, block_.tile_elems * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, block_.tile_elems * sizeof(T));
    xf_.Init(pipe_, block_.tile_elems);
    yf_.Init(pipe_, block_.tile_elems);
    pipe_.InitBuffer(param_, 1, kBatchNormParamRows * channel_pitch_ * sizeof(float));
  }

  __aicore__ inline void Process() {
    if (block_.rows == 0) return;
    LoadChannels();
    if (block_.chunked) {
      for (uint64_t row = 0; row < block_.rows; ++row) LongRow(row);
    } else {
      for (uint64_t first = 0; first < block_.rows; first += block_.tile_rows) {
        const uint32_t n = block_.TileRowsAt(first);
        const uint32_t count = n * split_.pitch;
        copy_in(in_, x_[first * split_.pitch], count);
        LocalTensor<T> x = in_.DeQue<T>();
        LocalTensor<T> y = out_.AllocTensor<T>();
        const LocalTensor<float> xf = xf_.View(x, count);
        const LocalTensor<float> yf = yf_.View(y);
        for (uint32_t r = 0; r < n; ++r) {
          Affine(yf[r * split_.pitch], xf[r * split_.pitch], split_.pitch, first + r);
        }
        yf_.Emit(out_, y, count);
        in_.FreeTensor(x);
        copy_out(y_[first * split_.pitch], out_, count);
      }
    }
    param_.FreeTensor(params_ub_);
  }

 private:
  // The parameters into UB, and each channel's scale computed there (kept for the whole core).
  __aicore__ inline void LoadChannels() {
    copy_in(param_, params_, kBatchNormParamRows * channel_pitch_);
    params_ub_ = param_.DeQue<float>();
    const LocalTensor<float> var = params_ub_[kVarRow * channel_pitch_];
    const LocalTensor<float> scale = params_ub_[kScaleRow * channel_pitch_];
    Adds(var, var, eps_, channel_pitch_);
    PipeBarrier<PIPE_V>();
    Sqrt(var, var, channel_pitch_);
    PipeBarrier<PIPE_V>();
    Div(scale, scale, var, channel_pitch_);
    wait_pipe<HardEvent::V_S>();  // the rows read their channel's values on the scalar unit
  }

  // A row longer than a UB tile, chunk by chunk.
  __aicore__ inline void LongRow(uint64_t row) {
    const uint64_t base = row * split_.pitch;
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = chunk_copied(split_, offset);
      copy_in(in_, x_[base + offset], count);
      LocalTensor<T> x = in_.DeQue<T>();
      LocalTensor<T> y = out_.AllocTensor<T>();
      Affine(yf_.View(y), xf_.View(x, count), count, row);
      yf_.Emit(out_, y, count);
      in_.FreeTensor(x);
      copy_out(y_[base + offset], out_, count);
    }
  }

  // yf = (xf - mean) * scale + bias over n elements of this core's row `row`.
  __aicore__ inline void Affine(const LocalTensor<float>& yf, const LocalTensor<float>& xf,
                                uint32_t n, uint64_t row) {
    const uint32_t c = static_cast<uint32_t>((block_.first + row) / rows_per_channel_ % channels_);
    const float mean = params_ub_.GetValue(kMeanRow * channel_pitch_ + c);
    const float scale = params_ub_.GetValue(kScaleRow * channel_pitch_ + c);
    const float bias = params_ub_.GetValue(kBiasRow * channel_pitch_ + c);
    const bool finite = scale - scale == 0.0f;  // false for +-inf (and NaN)
    if (finite) {
      Adds(yf, xf, -mean, n);
      PipeBarrier<PIPE_V>();
      Muls(yf, yf, scale, n);
    } else {
      Muls(yf, xf, scale, n);
    }
    PipeBarrier<PIPE_V>();
    Adds(yf, yf, finite ? bias : bias - mean * scale, n);
    PipeBarrier<PIPE_V>();
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECIN, 1> param_;
  TQue<TPosition::VECOUT, 1> out_;
  ComputeIn<T> xf_;
  ComputeOut<T> yf_;
  GlobalTensor<T> x_;
  GlobalTensor<T> y_;
  GlobalTensor<float> params_;
  LocalTensor<float> params_ub_;
  RowSplit split_{};
  RowBlock block_;
  uint32_t channels_ = 1;
  uint32_t rows_per_channel_ = 1;
  uint32_t channel_pitch_ = 0;
  float eps_ = 0.0f;
};

template <typename T>
__aicore__ inline void run_batch_norm(GM_ADDR x, GM_ADDR params, GM_ADDR y, GM_ADDR tiling) {
  run_kernel<BatchNormKernel<T>>(load_tiling<BatchNormTiling>(tiling), x, params, y);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_BATCH_NORM_RUN kiln::ascend::run_batch_norm
KILN_ASCEND_DEFINE_KERNELS(KILN_BATCH_NORM)
