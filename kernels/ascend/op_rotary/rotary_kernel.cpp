// Ascend C kernel of rotary_embedding: each head's pairs (x, y) -> (x cos - y sin, y cos + x sin)
// in float, rounded once. The host stages every head as an x plane and a y plane and the cache as
// cosine and sine planes per position (rotary_tiling.h), so the rotation is six vector
// instructions per head on aligned operands, the same for NeoX and GPT-J. A core takes whole
// tokens: it reads each token's position on the scalar unit, brings that cache row in, and
// rotates the token's heads a tile at a time.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/op_rotary/rotary_kernels.h"
#include "kernels/ascend/op_rotary/rotary_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

// T: the heads' storage dtype; Tc: the cache's.
template <typename T, typename Tc>
class RotaryKernel {
  static constexpr int32_t kBufferNum = 2;

 public:
  __aicore__ inline void Init(GM_ADDR positions, GM_ADDR cache, GM_ADDR x, GM_ADDR y,
                              const RotaryTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.tokens, t_.block_tokens);
    first_ = range.start;
    count_ = range.length;
    if (count_ == 0) return;
    head_ = 2 * t_.plane;
    const uint64_t elems = t_.tokens * t_.heads * head_;
    positions_.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(positions), t_.tokens);
    cache_.SetGlobalBuffer(reinterpret_cast<__gm__ Tc*>(cache), t_.positions * head_);
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), elems);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), elems);
    const uint32_t tile = t_.tile_heads * head_;
    pipe_.InitBuffer(cache_in_, 1, head_ * sizeof(Tc));
    pipe_.InitBuffer(in_, kBufferNum, tile * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, tile * sizeof(T));
    pipe_.InitBuffer(scratch_, t_.plane * sizeof(float));
    cache_wide_.Init(pipe_, head_);
    x_wide_.Init(pipe_, tile);
    y_wide_.Init(pipe_, tile);
  }

  __aicore__ inline void Process() {
    for (uint64_t token = first_; token < first_ + count_; ++token) {
      const uint64_t position = static_cast<uint64_t>(positions_.GetValue(token));
      copy_in(cache_in_, cache_[position * head_], head_);
      LocalTensor<Tc> row = cache_in_.template DeQue<Tc>();
      const LocalTensor<float> cos_sin = cache_wide_.View(row, head_);
      for (uint32_t h = 0; h < t_.heads; h += t_.tile_heads) {
        const uint32_t heads = t_.heads - h < t_.tile_heads ? t_.heads - h : t_.tile_heads;
        Rotate((token * t_.heads + h) * head_, heads * head_, heads, cos_sin);
      }
      cache_in_.FreeTensor(row);
    }
  }

 private:
  // `heads` staged heads (n elements) at GM offset `at`, rotated by one cache row.
  __aicore__ inline void Rotate(uint64_t at, uint32_t n, uint32_t heads,
                                const LocalTensor<float>& cos_sin) {
    const uint32_t p = t_.plane;
    const LocalTensor<float> cos = cos_sin;
    const LocalTensor<float> sin = cos_sin[p];
    LocalTensor<float> tmp = scratch_.Get<float>();
    copy_in(in_, x_[at], n);
    LocalTensor<T> a = in_.template DeQue<T>();
    LocalTensor<T> b = out_.template AllocTensor<T>();
    const LocalTensor<float> in = x_wide_.View(a, n);
    const LocalTensor<float> out = y_wide_.View(b);
    for (uint32_t k = 0; k < heads; ++k) {
      const uint32_t o = k * head_;
      Mul(out[o], in[o], cos, p);  // x cos - y sin
      Mul(tmp, in[o + p], sin, p);
      Sub(out[o], out[o], tmp, p);
      Mul(out[o + p], in[o + p], cos, p);  // y cos + x sin
      Mul(tmp, in[o], sin, p);
      Add(out[o + p], out[o + p], tmp, p);
    }
    y_wide_.Emit(out_, b, n);
    in_.FreeTensor(a);
    copy_out(y_[at], out_, n);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> cache_in_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  TBuf<TPosition::VECCALC> scratch_;
  ComputeIn<Tc> cache_wide_;
  ComputeIn<T> x_wide_;
  ComputeOut<T> y_wide_;
  GlobalTensor<int64_t> positions_;
  GlobalTensor<Tc> cache_;
  GlobalTensor<T> x_;
  GlobalTensor<T> y_;
  RotaryTiling t_;
  uint32_t head_ = 0;
  uint64_t first_ = 0;
  uint64_t count_ = 0;
};

template <typename T, typename Tc>
__aicore__ inline void run_rotary(GM_ADDR positions, GM_ADDR cache, GM_ADDR x, GM_ADDR y,
                                  GM_ADDR tiling) {
  run_kernel<RotaryKernel<T, Tc>>(load_tiling<RotaryTiling>(tiling), positions, cache, x, y);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_ROTARY_RUN kiln::ascend::run_rotary
KILN_ASCEND_DEFINE_KERNELS(KILN_ROTARY)
