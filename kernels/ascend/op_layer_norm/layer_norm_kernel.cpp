// Ascend C layer norm kernel over the last dim: each core normalizes whole rows.
//
// Per row, in float: mean = sum(x / n) and m2 = sum((x - mean)^2) (two passes over UB, balanced
// tree sums), rstd = 1 / sqrt(m2 / n + eps), y = (x - mean) * rstd * weight + bias. Rows that
// fit in UB go several to a tile with weight and bias resident in UB; a longer row goes through
// UB in chunks: per-chunk moments merged as in Chan et al.'s parallel variance, then the output.
#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_math.h"
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
  static constexpr bool kWide = !std::is_same_v<T, float>;
  static constexpr bool kWideParams = !std::is_same_v<P, float>;
  static constexpr uint32_t kStatPitch = kLayerNormStatPitchBytes / sizeof(P);

 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR y, GM_ADDR mean,
                              GM_ADDR rstd, const LayerNormTiling& tiling) {
    split_ = tiling.split;
    eps_ = tiling.eps;
    has_weight_ = tiling.has_weight != 0;
    has_bias_ = tiling.has_bias != 0;
    const BlockRange range = block_range(split_.rows, split_.block_rows);
    rows_ = range.length;
    if (rows_ == 0) return;
    chunked_ = split_.tile_rows == 0;
    tile_rows_ = chunked_ ? 1 : split_.tile_rows;
    const uint32_t tile_elems = chunked_ ? split_.chunk : tile_rows_ * split_.pitch;
    const uint32_t row_elems = chunked_ ? split_.chunk : split_.pitch;
    const uint64_t first = range.start;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + first * split_.pitch, rows_ * split_.pitch);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + first * split_.pitch, rows_ * split_.pitch);
    mean_.SetGlobalBuffer(reinterpret_cast<__gm__ P*>(mean) + first * kStatPitch,
                          rows_ * kStatPitch);
    rstd_.SetGlobalBuffer(reinterpret_cast<__gm__ P*>(rstd) + first * kStatPitch,
                          rows_ * kStatPitch);
    if (has_weight_) weight_.SetGlobalBuffer(reinterpret_cast<__gm__ P*>(weight), split_.pitch);
    if (has_bias_) bias_.SetGlobalBuffer(reinterpret_cast<__gm__ P*>(bias), split_.pitch);

    pipe_.InitBuffer(in_, kBufferNum, tile_elems * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, tile_elems * sizeof(T));
    if constexpr (kWide) {
      pipe_.InitBuffer(wide_in_, tile_elems * sizeof(float));
      pipe_.InitBuffer(wide_out_, tile_elems * sizeof(float));
    }
    pipe_.InitBuffer(stat_, kBufferNum, 2 * tile_rows_ * kLayerNormStatPitchBytes);
    if constexpr (kWideParams) {
      pipe_.InitBuffer(stage_, 2 * tile_rows_ * kStatPitch * sizeof(float));
    }
    if (has_weight_ || has_bias_) {
      pipe_.InitBuffer(param_, kBufferNum, row_elems * sizeof(P));
      if constexpr (kWideParams) {
        if (has_weight_) pipe_.InitBuffer(weight_f_, row_elems * sizeof(float));
        if (has_bias_) pipe_.InitBuffer(bias_f_, row_elems * sizeof(float));
      }
    }
    pipe_.InitBuffer(fold_, row_elems * sizeof(float));
    pipe_.InitBuffer(work_, reduce_work_bytes(kFloatRepeat));  // sums end on one repeat
  }

  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    if (chunked_) {
      for (uint64_t row = 0; row < rows_; ++row) LongRow(row);
      return;
    }
    LoadParams(0, split_.pitch);  // resident for every tile of this core
    for (uint64_t first = 0; first < rows_; first += tile_rows_) {
      const uint32_t n =
          static_cast<uint32_t>(rows_ - first < tile_rows_ ? rows_ - first : tile_rows_);
      const uint32_t count = n * split_.pitch;
      CopyIn(first * split_.pitch, count);
      LocalTensor<T> x = in_.DeQue<T>();
      LocalTensor<T> y = out_.AllocTensor<T>();
      LocalTensor<P> stats = stat_.AllocTensor<P>();
      const LocalTensor<float> xf = Widened(x, count);
      const LocalTensor<float> yf = Result(y);
      for (uint32_t r = 0; r < n; ++r) {
        const LocalTensor<float> row = xf[r * split_.pitch];
        const Moments m = RowMoments(row, split_.row_len);
        const float rstd = Rstd(m.m2);
        Normalize(yf[r * split_.pitch], row, split_.row_len, m.mean, rstd);
        StoreStats(stats, r, m.mean, rstd);
      }
      Emit(y, count);
      in_.FreeTensor(x);
      CopyOut(first * split_.pitch, count);
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
      CopyIn(base + offset, Copied(offset));
      LocalTensor<T> x = in_.DeQue<T>();
      const Moments part = RowMoments(Widened(x, Copied(offset)), Valid(offset));
      in_.FreeTensor(x);
      Merge(total, part);
    }
    const float rstd = Rstd(total.m2);
    for (uint32_t offset = 0; offset < split_.pitch; offset += split_.chunk) {
      const uint32_t count = Copied(offset);
      LoadParams(offset, count);
      CopyIn(base + offset, count);
      LocalTensor<T> x = in_.DeQue<T>();
      LocalTensor<T> y = out_.AllocTensor<T>();
      Normalize(Result(y), Widened(x, count), Valid(offset), total.mean, rstd);
      Emit(y, count);
      in_.FreeTensor(x);
      ReleaseParams();
      CopyOut(base + offset, count);
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

  __aicore__ inline LocalTensor<float> LoadParam(const GlobalTensor<P>& gm, LocalTensor<P>& held,
                                                 TBuf<TPosition::VECCALC>& wide, uint32_t offset,
                                                 uint32_t count) {
    LocalTensor<P> loaded = param_.AllocTensor<P>();
    DataCopy(loaded, gm[offset], count);
    param_.EnQue(loaded);
    held = param_.DeQue<P>();
    if constexpr (kWideParams) {
      LocalTensor<float> f = wide.Get<float>();
      widen(f, held, count);
      param_.FreeTensor(held);
      return f;
    } else {
      return held;
    }
  }

  // Float parameters stay in their queue buffers while in use.
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
    const uint32_t rstd_at = (tile_rows_ + r) * kStatPitch;
    if constexpr (kWideParams) {
      LocalTensor<float> stage = stage_.Get<float>();
      stage.SetValue(r * kStatPitch, mean);
      stage.SetValue(rstd_at, rstd);
    } else {
      stats.SetValue(r * kStatPitch, mean);
      stats.SetValue(rstd_at, rstd);
    }
  }

  __aicore__ inline void EmitStats(LocalTensor<P>& stats) {
    if constexpr (kWideParams) {
      wait_pipe<HardEvent::S_V>();
      narrow(stats, stage_.Get<float>(), 2 * tile_rows_ * kStatPitch);
    } else {
      wait_pipe<HardEvent::S_MTE3>();
    }
    stat_.EnQue(stats);
  }

  __aicore__ inline void CopyOutStats(uint64_t first_row, uint32_t rows) {
    LocalTensor<P> stats = stat_.DeQue<P>();
    DataCopy(mean_[first_row * kStatPitch], stats, rows * kStatPitch);
    DataCopy(rstd_[first_row * kStatPitch], stats[tile_rows_ * kStatPitch], rows * kStatPitch);
    stat_.FreeTensor(stats);
  }

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

  __aicore__ inline LocalTensor<float> Widened(const LocalTensor<T>& x, uint32_t count) {
    if constexpr (kWide) {
      LocalTensor<float> wide = wide_in_.Get<float>();
      widen(wide, x, count);
      return wide;
    } else {
      return x;
    }
  }

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
  TQue<TPosition::VECIN, 1> param_;
  TQue<TPosition::VECOUT, 1> out_;
  TQue<TPosition::VECOUT, 1> stat_;
  TBuf<TPosition::VECCALC> wide_in_;
  TBuf<TPosition::VECCALC> wide_out_;
  TBuf<TPosition::VECCALC> stage_;
  TBuf<TPosition::VECCALC> weight_f_;
  TBuf<TPosition::VECCALC> bias_f_;
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
  uint64_t rows_ = 0;
  uint32_t tile_rows_ = 1;
  float eps_ = 0.0f;
  bool chunked_ = false;
  bool has_weight_ = false;
  bool has_bias_ = false;
};

template <typename T, typename P>
__aicore__ inline void run_layer_norm(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR y,
                                      GM_ADDR mean, GM_ADDR rstd, GM_ADDR tiling) {
  const auto t = load_tiling<LayerNormTiling>(tiling);
  LayerNormKernel<T, P> kernel;
  kernel.Init(x, weight, bias, y, mean, rstd, t);
  kernel.Process();
}

}  // namespace
}  // namespace kiln::ascend

// One entry per (input dtype, parameter dtype) pair torch takes.
extern "C" __global__ __aicore__ void kiln_layer_norm_float(GM_ADDR x, GM_ADDR weight, GM_ADDR bias,
                                                            GM_ADDR y, GM_ADDR mean, GM_ADDR rstd,
                                                            GM_ADDR tiling) {
  kiln::ascend::run_layer_norm<float, float>(x, weight, bias, y, mean, rstd, tiling);
}

extern "C" __global__ __aicore__ void kiln_layer_norm_half(GM_ADDR x, GM_ADDR weight, GM_ADDR bias,
                                                           GM_ADDR y, GM_ADDR mean, GM_ADDR rstd,
                                                           GM_ADDR tiling) {
  kiln::ascend::run_layer_norm<half, half>(x, weight, bias, y, mean, rstd, tiling);
}

extern "C" __global__ __aicore__ void kiln_layer_norm_half_float(GM_ADDR x, GM_ADDR weight,
                                                                 GM_ADDR bias, GM_ADDR y,
                                                                 GM_ADDR mean, GM_ADDR rstd,
                                                                 GM_ADDR tiling) {
  kiln::ascend::run_layer_norm<half, float>(x, weight, bias, y, mean, rstd, tiling);
}

#if !defined(__NPU_ARCH__) || __NPU_ARCH__ == 2201
// bfloat16 exists on Ascend910B (arch 2201) only.
extern "C" __global__ __aicore__ void kiln_layer_norm_bf16(GM_ADDR x, GM_ADDR weight, GM_ADDR bias,
                                                           GM_ADDR y, GM_ADDR mean, GM_ADDR rstd,
                                                           GM_ADDR tiling) {
  kiln::ascend::run_layer_norm<bfloat16_t, bfloat16_t>(x, weight, bias, y, mean, rstd, tiling);
}

extern "C" __global__ __aicore__ void kiln_layer_norm_bf16_float(GM_ADDR x, GM_ADDR weight,
                                                                 GM_ADDR bias, GM_ADDR y,
                                                                 GM_ADDR mean, GM_ADDR rstd,
                                                                 GM_ADDR tiling) {
  kiln::ascend::run_layer_norm<bfloat16_t, float>(x, weight, bias, y, mean, rstd, tiling);
}
#endif
