// Ascend C layer norm kernel over the last dim: each core normalizes whole rows.
//
// Per row, in float: mean = sum(x / n) and m2 = sum((x - mean)^2) (two passes over UB, balanced
// tree sums), rstd = 1 / sqrt(m2 / n + eps), y = (x - mean) * rstd * weight + bias. Rows that
// fit in UB go several to a tile with weight and bias resident in UB; a longer row goes through
// UB in chunks: per-chunk moments merged as in Chan et al.'s parallel variance, then the output.
#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_layer_norm/layer_norm_kernels.h"
#include "kernels/ascend/op_layer_norm/layer_norm_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i computes

// Mean and sum of squared deviations of `count` elements.
struct Moments {
  float count;
  float mean;
  float m2;
};

// T: input/output storage type; P: weight, bias, mean and rstd (T, or float for a 16-bit T).
template <typename T, typename P>
class LayerNormKernel {
  static constexpr bool kWideParams = !std::is_same_v<P, float>;
  static constexpr uint32_t kStatPitch = kLayerNormStatPitchBytes / sizeof(P);

 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR y, GM_ADDR mean,
                              GM_ADDR rstd, const LayerNormTiling& tiling) {
    split_ = tiling.split;
    eps_ = tiling.eps;
    has_weight_ = tiling.has_weight != 0;
    has_bias_ = tiling.has_bias != 0;
    block_ = row_block(split_);
    if (block_.rows == 0) return;
    const uint64_t first = block_.first;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + first * split_.pitch,
                       block_.rows * split_.pitch);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + first * split_.pitch,
                       block_.rows * split_.pitch);
    mean_.SetGlobalBuffer(reinterpret_cast<__gm__ P*>(mean) + first * kStatPitch,
                          block_.rows * kStatPitch);
    rstd_.SetGlobalBuffer(reinterpret_cast<__gm__ P*>(rstd) + first * kStatPitch,
                          block_.rows * kStatPitch);
    if (has_weight_) weight_.SetGlobalBuffer(reinterpret_cast<__gm__ P*>(weight), split_.pitch);
    if (has_bias_) bias_.SetGlobalBuffer(reinterpret_cast<__gm__ P*>(bias), split_.pitch);

    pipe_.InitBuffer(in_, kBufferNum, block_.tile_elems * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, block_.tile_elems * sizeof(T));
    xf_.Init(pipe_, block_.tile_elems);
    yf_.Init(pipe_, block_.tile_elems);
    pipe_.InitBuffer(stat_, kBufferNum, 2 * block_.tile_rows * kLayerNormStatPitchBytes);
    stats_f_.Init(pipe_, 2 * block_.tile_rows * kStatPitch);
    if (has_weight_ || has_bias_) {
      pipe_.InitBuffer(param_, kBufferNum, block_.row_elems * sizeof(P));
      if (has_weight_) weight_f_.Init(pipe_, block_.row_elems);
      if (has_bias_) bias_f_.Init(pipe_, block_.row_elems);
    }
    pipe_.InitBuffer(fold_, block_.row_elems * sizeof(float));
    pipe_.InitBuffer(work_, reduce_work_bytes(kFloatRepeat));  // sums end on one repeat
  }

  __aicore__ inline void Process() {
    if (block_.rows == 0) return;
    if (block_.chunked) {
      for (uint64_t row = 0; row < block_.rows; ++row) LongRow(row);
      return;
    }
    LoadParams(0, split_.pitch);  // resident for every tile of this core
    for (uint64_t first = 0; first < block_.rows; first += block_.tile_rows) {
      const uint32_t n = block_.TileRowsAt(first);
      const uint32_t count = n * split_.pitch;
      copy_in(in_, x_[first * split_.pitch], count);
      LocalTensor<T> x = in_.DeQue<T>();
      LocalTensor<T> y = out_.AllocTensor<T>();
      LocalTensor<P> stats = stat_.AllocTensor<P>();
      const LocalTensor<float> xf = xf_.View(x, count);
      const LocalTensor<float> yf = yf_.View(y);
      for (uint32_t r = 0; r < n; ++r) {
        const LocalTensor<float> row = xf[r * split_.pitch];
        const Moments m = RowMoments(row, split_.row_len);
        const float rstd = Rstd(m.m2);
        Normalize(yf[r * split_.pitch], row, split_.row_len, m.mean, rstd);
        StoreStats(stats, r, m.mean, rstd);
      }
      yf_.Emit(out_, y, count);
      in_.FreeTensor(x);
      copy_out(y_[first * split_.pitch], out_, count);
      EmitStats(stats);
      CopyOutStats(first, n);
    }
    ReleaseParams();
  }

 private:
  // A row longer than UB: pass 1 merges the chunks' moments, pass 2 writes the output.
  __aicore__ inline void LongRow(uint64_t row) {
    const uint64_t base = row * split_.pitch;
    Moments total{0.0f, 0.0f, 0.0f};
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = chunk_copied(split_, offset);
      copy_in(in_, x_[base + offset], count);
      LocalTensor<T> x = in_.DeQue<T>();
      const Moments part = RowMoments(xf_.View(x, count), chunk_valid(split_, offset));
      in_.FreeTensor(x);
      Merge(total, part);
    }
    const float rstd = Rstd(total.m2);
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = chunk_copied(split_, offset);
      LoadParams(offset, count);
      copy_in(in_, x_[base + offset], count);
      LocalTensor<T> x = in_.DeQue<T>();
      LocalTensor<T> y = out_.AllocTensor<T>();
      Normalize(yf_.View(y), xf_.View(x, count), chunk_valid(split_, offset), total.mean, rstd);
      yf_.Emit(out_, y, count);
      in_.FreeTensor(x);
      ReleaseParams();
      copy_out(y_[base + offset], out_, count);
    }
    LocalTensor<P> stats = stat_.AllocTensor<P>();
    StoreStats(stats, 0, total.mean, rstd);
    EmitStats(stats);
    CopyOutStats(row, 1);
  }

  // Two passes over xf[0, n): the mean, then the sum of squared deviations from it. The mean
  // sums x / n, which cannot overflow where x does not. A row holding +-inf gets a NaN mean,
  // as torch's Welford update gives it (inf - inf on the next element).
  __aicore__ inline Moments RowMoments(const LocalTensor<float>& xf, uint32_t n) {
    LocalTensor<float> fold = fold_.Get<float>();
    LocalTensor<float> work = work_.Get<float>();
    const float count = static_cast<float>(n);
    Muls(fold, xf, 1.0f / count, n);
    PipeBarrier<PIPE_V>();
    float mean = tree_sum(fold, work, n);
    if (!(mean - mean == 0.0f)) mean = __builtin_nanf("");
    Adds(fold, xf, -mean, n);
    PipeBarrier<PIPE_V>();
    Mul(fold, fold, fold, n);
    PipeBarrier<PIPE_V>();
    return {count, mean, tree_sum(fold, work, n)};
  }

  // Chan et al.: the moments of two disjoint parts combine without another pass.
  __aicore__ inline void Merge(Moments& total, const Moments& part) const {
    if (total.count == 0.0f) {
      total = part;
      return;
    }
    const float count = total.count + part.count;
    const float delta = part.mean - total.mean;
    total.mean += delta * (part.count / count);
    total.m2 += part.m2 + delta * delta * (total.count * part.count / count);
    total.count = count;
  }

  __aicore__ inline float Rstd(float m2) {
    const float variance = m2 / static_cast<float>(split_.row_len);
    return 1.0f / vector_sqrt(work_.Get<float>(), variance + eps_);
  }

  // yf = (xf - mean) * rstd (* weight) (+ bias) over n elements; the parameters line up with
  // xf (the row in a tile, or the current chunk).
  __aicore__ inline void Normalize(const LocalTensor<float>& yf, const LocalTensor<float>& xf,
                                   uint32_t n, float mean, float rstd) {
    Adds(yf, xf, -mean, n);
    PipeBarrier<PIPE_V>();
    Muls(yf, yf, rstd, n);
    PipeBarrier<PIPE_V>();
    if (has_weight_) {
      Mul(yf, yf, weight_f_view_, n);
      PipeBarrier<PIPE_V>();
    }
    if (has_bias_) {
      Add(yf, yf, bias_f_view_, n);
      PipeBarrier<PIPE_V>();
    }
  }

  // Weight and bias elements [offset, offset + count) into UB as float views.
  __aicore__ inline void LoadParams(uint32_t offset, uint32_t count) {
    if (has_weight_) weight_f_view_ = LoadParam(weight_, weight_q_, weight_f_, offset, count);
    if (has_bias_) bias_f_view_ = LoadParam(bias_, bias_q_, bias_f_, offset, count);
  }

  // A 16-bit parameter's queue buffer is free once widened; a float one is its own view and
  // stays in the queue while in use (ReleaseParams).
  __aicore__ inline LocalTensor<float> LoadParam(const GlobalTensor<P>& gm, LocalTensor<P>& held,
                                                 ComputeIn<P>& wide, uint32_t offset,
                                                 uint32_t count) {
    copy_in(param_, gm[offset], count);
    held = param_.DeQue<P>();
    const LocalTensor<float> f = wide.View(held, count);
    if constexpr (kWideParams) param_.FreeTensor(held);
    return f;
  }

  __aicore__ inline void ReleaseParams() {
    if constexpr (!kWideParams) {
      if (has_weight_) param_.FreeTensor(weight_q_);
      if (has_bias_) param_.FreeTensor(bias_q_);
    }
  }

  // Row r's mean and rstd into the first element of their 32-byte blocks: means in the first
  // half of the statistics buffer, rstds in the second.
  __aicore__ inline void StoreStats(const LocalTensor<P>& stats, uint32_t r, float mean,
                                    float rstd) {
    LocalTensor<float> staged = stats_f_.View(stats);
    staged.SetValue(r * kStatPitch, mean);
    staged.SetValue((block_.tile_rows + r) * kStatPitch, rstd);
  }

  __aicore__ inline void EmitStats(const LocalTensor<P>& stats) {
    stats_f_.EmitScalar(stat_, stats, 2 * block_.tile_rows * kStatPitch);
  }

  __aicore__ inline void CopyOutStats(uint64_t first_row, uint32_t rows) {
    LocalTensor<P> stats = stat_.DeQue<P>();
    DataCopy(mean_[first_row * kStatPitch], stats, rows * kStatPitch);
    DataCopy(rstd_[first_row * kStatPitch], stats[block_.tile_rows * kStatPitch],
             rows * kStatPitch);
    stat_.FreeTensor(stats);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECIN, 1> param_;
  TQue<TPosition::VECOUT, 1> out_;
  TQue<TPosition::VECOUT, 1> stat_;
  ComputeIn<T> xf_;
  ComputeOut<T> yf_;
  ComputeOut<P> stats_f_;  // means and rstds in float
  ComputeIn<P> weight_f_;
  ComputeIn<P> bias_f_;
  TBuf<TPosition::VECCALC> fold_;
  TBuf<TPosition::VECCALC> work_;
  GlobalTensor<T> x_;
  GlobalTensor<T> y_;
  GlobalTensor<P> weight_;
  GlobalTensor<P> bias_;
  GlobalTensor<P> mean_;
  GlobalTensor<P> rstd_;
  LocalTensor<P> weight_q_;
  LocalTensor<P> bias_q_;
  LocalTensor<float> weight_f_view_;
  LocalTensor<float> bias_f_view_;
  RowSplit split_{};
  RowBlock block_;
  float eps_ = 0.0f;
  bool has_weight_ = false;
  bool has_bias_ = false;
};

template <typename T, typename P>
__aicore__ inline void run_layer_norm(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR y,
                                      GM_ADDR mean, GM_ADDR rstd, GM_ADDR tiling) {
  run_kernel<LayerNormKernel<T, P>>(load_tiling<LayerNormTiling>(tiling), x, weight, bias, y, mean,
                                    rstd);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_LAYER_NORM_RUN kiln::ascend::run_layer_norm
KILN_ASCEND_DEFINE_KERNELS(KILN_LAYER_NORM)
