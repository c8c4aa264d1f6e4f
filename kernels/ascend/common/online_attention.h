// The attention loop of Kiln's Ascend attention kernels (op_paged_attention, op_llama_attention)
// on the vector unit, as the portable kernels' attention.h: query rows that read one kv head
// attend to chunks of tokens with an online softmax in float, the result rounded once.
//
// The kernel stages the rows (it knows where they live): per unit of work, the query rows into
// QueryStage() then QueryStaged(); per chunk, the tokens' key and value rows into StageChunk()'s
// tensors then ChunkStaged(), which widens them once for all the query rows; then Attend() for
// each query row that reads tokens of the chunk; last, Finish() into the output tile. A logit is
// a product and a tree sum; per row the chunk's logits are shifted by the running maximum and
// exponentiated as one vector, the accumulator is rescaled when the maximum grows, and each
// value row is added with its weight. The buffers' sizes are online_attention_ub_bytes()
// (attention_tiling.h).
#pragma once

#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/attention_tiling.h"
#include "kernels/ascend/common/row_math.h"

namespace kiln::ascend {

template <typename T>
class OnlineAttention {
  static constexpr bool kWide = !std::is_same_v<T, float>;
  // The lowest finite float: only -inf is below it.
  static constexpr float kLowest = -3.40282347e+38f;

 public:
  // Buffers for up to `rows` (<= kAttentionMaxRows) query rows of `d` elements and chunks of up
  // to `chunk` tokens.
  __aicore__ inline void Init(AscendC::TPipe& pipe, uint32_t rows, uint32_t d, uint32_t chunk) {
    d_ = d;
    chunk_ = chunk;
    pipe.InitBuffer(qf_, rows * d * sizeof(float));
    pipe.InitBuffer(acc_, rows * d * sizeof(float));
    pipe.InitBuffer(kf_, chunk * d * sizeof(float));
    pipe.InitBuffer(vf_, chunk * d * sizeof(float));
    if constexpr (kWide) {
      pipe.InitBuffer(stage_,
                      static_cast<uint32_t>(attention_stage_elems(rows, d, chunk)) * sizeof(T));
    }
    pipe.InitBuffer(prod_, 2 * d * sizeof(float));
    pipe.InitBuffer(work_, reduce_work_bytes(kFloatRepeat));
    pipe.InitBuffer(logits_, static_cast<uint32_t>(align_up(chunk, 8)) * sizeof(float));
  }

  // Where the kernel copies a unit's query rows (row r at [r * d]), once the vector unit is done
  // with the last unit's.
  __aicore__ inline AscendC::LocalTensor<T> QueryStage() {
    wait_pipe<AscendC::HardEvent::V_MTE2>();
    if constexpr (kWide) {
      return stage_.template Get<T>();
    } else {
      return qf_.template Get<T>();
    }
  }

  // The `rows` query rows have been copied: they are widened, the accumulators and sums zeroed.
  __aicore__ inline void QueryStaged(uint32_t rows) {
    wait_pipe<AscendC::HardEvent::MTE2_V>();
    if constexpr (kWide) widen(qf_.Get<float>(), stage_.template Get<T>(), rows * d_);
    AscendC::Duplicate(acc_.Get<float>(), 0.0f, static_cast<int32_t>(rows * d_));
    for (uint32_t r = 0; r < rows; ++r) {
      running_sum_[r] = 0.0f;
      started_[r] = false;
    }
  }

  // Where the kernel copies a chunk's key and value rows (token j at [j * d]), once the vector
  // unit is done with the last chunk's.
  __aicore__ inline void StageChunk(AscendC::LocalTensor<T>& keys,
                                    AscendC::LocalTensor<T>& values) {
    wait_pipe<AscendC::HardEvent::V_MTE2>();
    if constexpr (kWide) {
      keys = stage_.template Get<T>();
      values = keys[chunk_ * d_];
    } else {
      keys = kf_.template Get<T>();
      values = vf_.template Get<T>();
    }
  }

  // The chunk's `count` key and value rows have been copied: they are widened to float.
  __aicore__ inline void ChunkStaged(uint32_t count) {
    wait_pipe<AscendC::HardEvent::MTE2_V>();
    if constexpr (kWide) {
      AscendC::LocalTensor<T> keys = stage_.template Get<T>();
      widen(kf_.Get<float>(), keys, count * d_);
      widen(vf_.Get<float>(), keys[chunk_ * d_], count * d_);
    }
  }

  // Query row `row` attends to the chunk's first `count` (>= 1) tokens, the chunks coming in
  // token order. Token j's logit is scale * q.k + bias(j), bias being called on the scalar unit
  // in token order; a logit of -inf gets no weight, and while a row has seen nothing else, its
  // accumulator stays zero (as the portable kernels' attention.h).
  template <typename Bias>
  __aicore__ inline void Attend(uint32_t row, uint32_t count, float scale, const Bias& bias) {
    const int32_t d = static_cast<int32_t>(d_);
    AscendC::LocalTensor<float> p = logits_.Get<float>();
    AscendC::LocalTensor<float> prod = prod_.Get<float>();
    AscendC::LocalTensor<float> q = qf_.Get<float>()[row * d_];
    AscendC::LocalTensor<float> kf = kf_.Get<float>();
    AscendC::LocalTensor<float> vf = vf_.Get<float>();
    AscendC::LocalTensor<float> acc = acc_.Get<float>()[row * d_];
    float chunk_max = 0.0f;
    for (uint32_t j = 0; j < count; ++j) {
      AscendC::Mul(prod, q, kf[j * d_], d);
      AscendC::PipeBarrier<PIPE_V>();
      const float logit = scale * tree_sum(prod, work_.Get<float>(), d_) + bias(j);
      p.SetValue(j, logit);
      if (j == 0 || logit > chunk_max) chunk_max = logit;
    }
    const bool open = !started_[row];
    const float new_max = open || chunk_max > running_max_[row] ? chunk_max : running_max_[row];
    if (new_max < kLowest) return;  // -inf: every token so far is masked out
    if (!open && new_max != running_max_[row]) {
      const float rescale = vector_exp(prod, running_max_[row] - new_max);
      running_sum_[row] *= rescale;
      AscendC::Muls(acc, acc, rescale, d);
    }
    running_max_[row] = new_max;
    started_[row] = true;
    wait_pipe<AscendC::HardEvent::S_V>();
    AscendC::Adds(p, p, -new_max, static_cast<int32_t>(count));
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Exp(p, p, static_cast<int32_t>(count));
    wait_pipe<AscendC::HardEvent::V_S>();
    for (uint32_t j = 0; j < count; ++j) {
      const float weight = p.GetValue(j);
      running_sum_[row] += weight;
      AscendC::Muls(prod, vf[j * d_], weight, d);
      AscendC::PipeBarrier<PIPE_V>();
      AscendC::Add(acc, acc, prod, d);
      AscendC::PipeBarrier<PIPE_V>();
    }
  }

  // Row r's accumulator over its sum of weights, in float, at y[r * stride] (a partition's
  // result, which paged attention v2 combines with the others: RunningMax and RunningSum give
  // the rest of it); a row that attended to no token gets zeros.
  __aicore__ inline void FinishFloat(const AscendC::LocalTensor<float>& y, uint32_t rows,
                                     uint32_t stride) {
    AscendC::LocalTensor<float> acc = Normalized(rows);
    AscendC::PipeBarrier<PIPE_V>();
    for (uint32_t r = 0; r < rows; ++r) {
      AscendC::Adds(y[r * stride], acc[r * d_], 0.0f, static_cast<int32_t>(d_));
    }
  }

  // Row r's largest logit so far (the lowest float while it has seen none) and its sum of
  // weights relative to it: the scalar unit's own values.
  __aicore__ inline float RunningMax(uint32_t r) const {
    return started_[r] ? running_max_[r] : kLowest;
  }
  __aicore__ inline float RunningSum(uint32_t r) const { return running_sum_[r]; }

  // y[0, rows * d) = each row's accumulator over its sum of weights, in T; a row that attended
  // to no token gets zeros.
  __aicore__ inline void Finish(const AscendC::LocalTensor<T>& y, uint32_t rows) {
    AscendC::LocalTensor<float> acc = Normalized(rows);
    if constexpr (kWide) {
      narrow(y, acc, rows * d_);
    } else {
      AscendC::PipeBarrier<PIPE_V>();
      AscendC::Adds(y, acc, 0.0f, static_cast<int32_t>(rows * d_));
    }
  }

 private:
  // The accumulators, each row divided by its sum of weights (rows without weights stay zero).
  __aicore__ inline AscendC::LocalTensor<float> Normalized(uint32_t rows) {
    AscendC::LocalTensor<float> acc = acc_.Get<float>();
    AscendC::PipeBarrier<PIPE_V>();
    for (uint32_t r = 0; r < rows; ++r) {
      if (running_sum_[r] > 0.0f) {
        AscendC::Muls(acc[r * d_], acc[r * d_], 1.0f / running_sum_[r], static_cast<int32_t>(d_));
      }
    }
    return acc;
  }

  AscendC::TBuf<AscendC::TPosition::VECCALC> qf_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> acc_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> kf_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> vf_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> stage_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> prod_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> work_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> logits_;
  uint32_t d_ = 0;
  uint32_t chunk_ = 0;
  float running_max_[kAttentionMaxRows];  // valid once started_
  float running_sum_[kAttentionMaxRows];
  bool started_[kAttentionMaxRows];  // a logit above -inf seen
};

}  // namespace kiln::ascend
