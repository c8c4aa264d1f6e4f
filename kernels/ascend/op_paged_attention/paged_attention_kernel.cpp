// Ascend C paged attention (decode) on the vector unit: for each (sequence, kv head), its query
// heads attend to the sequence's first context_lens[s] cached tokens, gathered through the block
// table, with an online softmax in float, the result rounded once to the dtype.
//
// A chunk of tokens' key and value rows is copied in (one DataCopy per row, at the block the
// table names) and widened once for all the group's query heads. Each logit is a product and a
// tree sum; per head, the chunk's logits are shifted by the running maximum and exponentiated
// as one vector, the accumulator is rescaled when the maximum grows, and each token's value row
// is added with its weight.
#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_paged_attention/paged_attention_kernels.h"
#include "kernels/ascend/op_paged_attention/paged_attention_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

template <typename T>
class PagedAttentionKernel {
  static constexpr bool kWide = !std::is_same_v<T, float>;

 public:
  __aicore__ inline void Init(GM_ADDR query, GM_ADDR key_cache, GM_ADDR value_cache,
                              GM_ADDR block_tables, GM_ADDR context_lens, GM_ADDR slopes,
                              GM_ADDR out, const PagedAttentionTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.units, t_.block_units);
    first_unit_ = static_cast<uint32_t>(range.start);
    units_ = static_cast<uint32_t>(range.length);
    if (units_ == 0) return;
    const uint32_t d = t_.head_size;
    const uint32_t rows = t_.group * d;
    query_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(query));
    key_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(key_cache));
    value_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(value_cache));
    tables_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(block_tables));
    lens_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(context_lens));
    slopes_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(slopes));
    out_gm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(out));
    pipe_.InitBuffer(out_, 1, rows * sizeof(T));
    pipe_.InitBuffer(qf_, rows * sizeof(float));
    pipe_.InitBuffer(acc_, rows * sizeof(float));
    pipe_.InitBuffer(kf_, t_.token_chunk * d * sizeof(float));
    pipe_.InitBuffer(vf_, t_.token_chunk * d * sizeof(float));
    if constexpr (kWide) {
      pipe_.InitBuffer(stage_,
                       (t_.token_chunk > t_.group ? t_.token_chunk : t_.group) * d * 2 * sizeof(T));
    }
    pipe_.InitBuffer(prod_, 2 * d * sizeof(float));
    pipe_.InitBuffer(work_, reduce_work_bytes(kFloatRepeat));
    pipe_.InitBuffer(logits_, t_.group * t_.logit_pitch * sizeof(float));
  }

  __aicore__ inline void Process() {
    for (uint32_t u = 0; u < units_; ++u) {
      const uint32_t unit = first_unit_ + u;
      Unit(unit / t_.kv_heads, unit % t_.kv_heads);
    }
  }

 private:
  // Sequence s, kv head g: out[s, g * group .. (g + 1) * group).
  __aicore__ inline void Unit(uint32_t s, uint32_t g) {
    const uint32_t d = t_.head_size;
    const uint32_t rows = t_.group * d;
    const uint64_t first_row = (uint64_t{s} * t_.heads + uint64_t{g} * t_.group) * d;
    const uint32_t length = static_cast<uint32_t>(lens_.GetValue(s));
    LocalTensor<float> acc = acc_.Get<float>();
    Duplicate(acc, 0.0f, static_cast<int32_t>(rows));
    LoadRows(qf_.Get<float>(), query_[first_row], rows);
    float running_max[kPagedAttentionMaxGroup];
    float running_sum[kPagedAttentionMaxGroup];
    for (uint32_t h = 0; h < t_.group; ++h) running_sum[h] = 0.0f;
    for (uint32_t start = 0; start < length; start += t_.token_chunk) {
      const uint32_t count = length - start < t_.token_chunk ? length - start : t_.token_chunk;
      LoadChunk(s, g, start, count);
      Chunk(s, g, start, count, length, running_max, running_sum);
    }
    LocalTensor<T> y = out_.template AllocTensor<T>();
    PipeBarrier<PIPE_V>();
    for (uint32_t h = 0; h < t_.group && length > 0; ++h) {
      Muls(acc[h * d], acc[h * d], 1.0f / running_sum[h], static_cast<int32_t>(d));
    }
    if constexpr (kWide) {
      narrow(y, acc, rows);
    } else {
      PipeBarrier<PIPE_V>();
      Adds(y, acc, 0.0f, static_cast<int32_t>(rows));
    }
    out_.EnQue(y);
    copy_out(out_gm_[first_row], out_, rows);
  }

  // The logits of tokens [start, start + count) for every head of the group, then the online
  // softmax update of the running maxima, sums and accumulators.
  __aicore__ inline void Chunk(uint32_t s, uint32_t g, uint32_t start, uint32_t count,
                               uint32_t length, float* running_max, float* running_sum) {
    const uint32_t d = t_.head_size;
    LocalTensor<float> logits = logits_.Get<float>();
    LocalTensor<float> prod = prod_.Get<float>();
    LocalTensor<float> qf = qf_.Get<float>();
    LocalTensor<float> kf = kf_.Get<float>();
    LocalTensor<float> vf = vf_.Get<float>();
    LocalTensor<float> acc = acc_.Get<float>();
    for (uint32_t h = 0; h < t_.group; ++h) {
      const uint32_t head = g * t_.group + h;
      const float slope = t_.has_alibi != 0 ? slopes_.GetValue(head) : 0.0f;
      float chunk_max = 0.0f;
      for (uint32_t j = 0; j < count; ++j) {
        Mul(prod, qf[h * d], kf[j * d], static_cast<int32_t>(d));
        PipeBarrier<PIPE_V>();
        const float distance =
            static_cast<float>(static_cast<int64_t>(start + j) - static_cast<int64_t>(length) + 1);
        const float logit = t_.scale * tree_sum(prod, work_.Get<float>(), d) + slope * distance;
        logits.SetValue(h * t_.logit_pitch + j, logit);
        if (j == 0 || logit > chunk_max) chunk_max = logit;
      }
      const bool first = start == 0;
      const float new_max = first || chunk_max > running_max[h] ? chunk_max : running_max[h];
      if (!first && new_max != running_max[h]) {
        const float rescale = vector_exp(prod, running_max[h] - new_max);
        running_sum[h] *= rescale;
        Muls(acc[h * d], acc[h * d], rescale, static_cast<int32_t>(d));
      }
      running_max[h] = new_max;
      LocalTensor<float> p = logits[h * t_.logit_pitch];
      wait_pipe<HardEvent::S_V>();
      Adds(p, p, -new_max, static_cast<int32_t>(count));
      PipeBarrier<PIPE_V>();
      Exp(p, p, static_cast<int32_t>(count));
      wait_pipe<HardEvent::V_S>();
      for (uint32_t j = 0; j < count; ++j) {
        const float weight = p.GetValue(j);
        running_sum[h] += weight;
        Muls(prod, vf[j * d], weight, static_cast<int32_t>(d));
        PipeBarrier<PIPE_V>();
        Add(acc[h * d], acc[h * d], prod, static_cast<int32_t>(d));
        PipeBarrier<PIPE_V>();
      }
    }
  }

  // e^x of one float through the vector unit (the scalar unit has no exp); `scratch` holds at
  // least 8 floats.
  __aicore__ inline float vector_exp(const LocalTensor<float>& scratch, float x) {
    vector_scalar(scratch, x);
    Exp(scratch, scratch, 8);
    return vector_result(scratch);
  }

  // `count` elements of GM at `src` into `dst` as float.
  __aicore__ inline void LoadRows(const LocalTensor<float>& dst, const GlobalTensor<T>& src,
                                  uint32_t count) {
    wait_pipe<HardEvent::V_MTE2>();
    if constexpr (kWide) {
      LocalTensor<T> stage = stage_.Get<T>();
      DataCopy(stage, src, count);
      wait_pipe<HardEvent::MTE2_V>();
      widen(dst, stage, count);
    } else {
      DataCopy(dst, src, count);
      wait_pipe<HardEvent::MTE2_V>();
    }
  }

  // The key and value rows of tokens [start, start + count) of sequence s, kv head g, into kf_
  // and vf_ as float.
  __aicore__ inline void LoadChunk(uint32_t s, uint32_t g, uint32_t start, uint32_t count) {
    const uint32_t d = t_.head_size;
    wait_pipe<HardEvent::V_MTE2>();
    LocalTensor<float> kf = kf_.Get<float>();
    LocalTensor<float> vf = vf_.Get<float>();
    LocalTensor<T> keys;
    LocalTensor<T> values;
    if constexpr (kWide) {
      keys = stage_.Get<T>();
      values = keys[t_.token_chunk * d];
    } else {
      keys = kf;
      values = vf;
    }
    for (uint32_t j = 0; j < count; ++j) {
      const uint32_t token = start + j;
      const int32_t block = tables_.GetValue(uint64_t{s} * t_.max_blocks + token / t_.block_size);
      const uint64_t row =
          ((uint64_t(block) * t_.block_size + token % t_.block_size) * t_.kv_heads + g) * d;
      DataCopy(keys[j * d], key_[row], d);
      DataCopy(values[j * d], value_[row], d);
    }
    wait_pipe<HardEvent::MTE2_V>();
    if constexpr (kWide) {
      widen(kf, keys, count * d);
      widen(vf, values, count * d);
    }
  }

  TPipe pipe_;
  TQue<TPosition::VECOUT, 1> out_;
  TBuf<TPosition::VECCALC> qf_;
  TBuf<TPosition::VECCALC> acc_;
  TBuf<TPosition::VECCALC> kf_;
  TBuf<TPosition::VECCALC> vf_;
  TBuf<TPosition::VECCALC> stage_;
  TBuf<TPosition::VECCALC> prod_;
  TBuf<TPosition::VECCALC> work_;
  TBuf<TPosition::VECCALC> logits_;
  GlobalTensor<T> query_;
  GlobalTensor<T> key_;
  GlobalTensor<T> value_;
  GlobalTensor<int32_t> tables_;
  GlobalTensor<int32_t> lens_;
  GlobalTensor<float> slopes_;
  GlobalTensor<T> out_gm_;
  PagedAttentionTiling t_{};
  uint32_t first_unit_ = 0;
  uint32_t units_ = 0;
};

template <typename T>
__aicore__ inline void run_paged_attention(GM_ADDR query, GM_ADDR key_cache, GM_ADDR value_cache,
                                           GM_ADDR block_tables, GM_ADDR context_lens,
                                           GM_ADDR slopes, GM_ADDR out, GM_ADDR tiling) {
  run_kernel<PagedAttentionKernel<T>>(load_tiling<PagedAttentionTiling>(tiling), query, key_cache,
                                      value_cache, block_tables, context_lens, slopes, out);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_PAGED_ATTENTION_RUN kiln::ascend::run_paged_attention
KILN_ASCEND_DEFINE_KERNELS(KILN_PAGED_ATTENTION)
