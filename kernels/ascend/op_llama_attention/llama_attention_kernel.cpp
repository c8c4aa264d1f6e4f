// Ascend C kernel of llama::custom_sdpa (ExecuTorch's LLM attention, prefill and decode) on the
// vector unit: for each (batch, block of query rows, kv head), the block's rows of the kv head's
// query heads attend to their first lengths[i] positions of key and value, with the online
// softmax of common/online_attention.h (in float, the result rounded once to the dtype) and,
// with a mask, mask[i] added to the scaled logits.
//
// A chunk of positions' key and value rows (a run with a stride of kv_heads rows) is copied in
// with one strided DataCopy each and widened once for all the block's query heads; the block's
// query rows come in, and go out, with one strided DataCopy too. With a mask, each query row's
// part of it for the chunk is copied in and read by the scalar unit as the logits are formed.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/online_attention.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/op_llama_attention/llama_attention_kernels.h"
#include "kernels/ascend/op_llama_attention/llama_attention_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

// A query row's mask for the tokens of a chunk, as UB holds it.
struct MaskBias {
  LocalTensor<float> row;

  __aicore__ inline float operator()(uint32_t j) const { return row.GetValue(j); }
};

// No mask: nothing is added to a logit.
struct NoBias {
  __aicore__ inline float operator()(uint32_t) const { return 0.0f; }
};

template <typename T>
class LlamaAttentionKernel {
 public:
  __aicore__ inline void Init(GM_ADDR query, GM_ADDR keys, GM_ADDR values, GM_ADDR mask,
                              GM_ADDR lengths, GM_ADDR out, const LlamaAttentionTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.units, t_.block_units);
    first_unit_ = static_cast<uint32_t>(range.start);
    units_ = static_cast<uint32_t>(range.length);
    if (units_ == 0) return;
    const uint32_t d = t_.head_size;
    query_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(query));
    key_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(keys));
    value_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(values));
    lengths_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(lengths));
    out_gm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(out));
    const uint32_t rows = t_.query_block * t_.group;
    pipe_.InitBuffer(out_, 1, rows * d * sizeof(T));
    attention_.Init(pipe_, rows, d, t_.token_chunk);
    if (t_.mask_pitch > 0) {
      mask_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(mask));
      pipe_.InitBuffer(mask_row_, t_.token_chunk * sizeof(float));
    }
    // The block's rows of heads in 32-byte units, and the gaps between them in GM: the other
    // query heads of a query row, the other kv heads of a position.
    const uint32_t blocks_per_head = d * sizeof(T) / 32;
    group_blocks_ = static_cast<uint16_t>(t_.group * blocks_per_head);
    query_gap_ = static_cast<uint16_t>((t_.heads - t_.group) * blocks_per_head);
    kv_gap_ = static_cast<uint16_t>((t_.kv_heads - 1) * blocks_per_head);
  }

  __aicore__ inline void Process() {
    for (uint32_t u = 0; u < units_; ++u) {
      const uint32_t unit = first_unit_ + u;
      const uint32_t g = unit % t_.kv_heads;
      const uint32_t block = unit / t_.kv_heads % t_.row_blocks;
      Unit(unit / t_.kv_heads / t_.row_blocks, block * t_.query_block, g);
    }
  }

 private:
  // Batch b, query rows [first, first + query_block) (or to the last), kv head g.
  __aicore__ inline void Unit(uint32_t b, uint32_t first, uint32_t g) {
    const uint32_t d = t_.head_size;
    const uint32_t queries =
        t_.queries - first < t_.query_block ? t_.queries - first : t_.query_block;
    const uint64_t q_offset = ((uint64_t{b} * t_.queries + first) * t_.heads + g * t_.group) * d;
    const DataCopyParams rows_of_heads{static_cast<uint16_t>(queries), group_blocks_, query_gap_,
                                       0};
    DataCopy(attention_.QueryStage(), query_[q_offset], rows_of_heads);
    attention_.QueryStaged(queries * t_.group);
    uint32_t lengths[kAttentionMaxRows];
    uint32_t longest = 0;
    for (uint32_t r = 0; r < queries; ++r) {
      lengths[r] = static_cast<uint32_t>(lengths_.GetValue(first + r));
      if (lengths[r] > longest) longest = lengths[r];
    }
    for (uint32_t start = 0; start < longest; start += t_.token_chunk) {
      const uint32_t count = longest - start < t_.token_chunk ? longest - start : t_.token_chunk;
      StageChunk(b, g, start, count);
      for (uint32_t r = 0; r < queries; ++r) {
        if (lengths[r] <= start) continue;
        const uint32_t seen = lengths[r] - start < count ? lengths[r] - start : count;
        if (t_.mask_pitch > 0) {
          AttendRow(r, seen, MaskBias{StageMask(first + r, start, seen)});
        } else {
          AttendRow(r, seen, NoBias{});
        }
      }
    }
    LocalTensor<T> y = out_.template AllocTensor<T>();
    attention_.Finish(y, queries * t_.group);
    out_.EnQue(y);
    y = out_.template DeQue<T>();
    DataCopy(out_gm_[q_offset], y,
             DataCopyParams{rows_of_heads.blockCount, group_blocks_, 0, query_gap_});
    out_.FreeTensor(y);
  }

  // Query row r of the block, every head of the group, over the chunk's first `seen` tokens.
  template <typename Bias>
  __aicore__ inline void AttendRow(uint32_t r, uint32_t seen, const Bias& bias) {
    for (uint32_t h = 0; h < t_.group; ++h) {
      attention_.Attend(r * t_.group + h, seen, t_.scale, bias);
    }
  }

  // Positions [start, start + count) of batch b, kv head g: one strided DataCopy each for key
  // and value.
  __aicore__ inline void StageChunk(uint32_t b, uint32_t g, uint32_t start, uint32_t count) {
    const uint32_t d = t_.head_size;
    LocalTensor<T> keys;
    LocalTensor<T> values;
    attention_.StageChunk(keys, values);
    const uint64_t row = ((uint64_t{b} * t_.positions + start) * t_.kv_heads + g) * d;
    const DataCopyParams run{static_cast<uint16_t>(count),
                             static_cast<uint16_t>(d * sizeof(T) / 32), kv_gap_, 0};
    DataCopy(keys, key_[row], run);
    DataCopy(values, value_[row], run);
    attention_.ChunkStaged(count);
  }

  // Mask row i's values for `count` tokens from `start` (whole 32-byte blocks; start is a
  // multiple of 8), for the scalar unit.
  __aicore__ inline LocalTensor<float> StageMask(uint32_t i, uint32_t start, uint32_t count) {
    LocalTensor<float> row = mask_row_.Get<float>();
    wait_pipe<HardEvent::S_MTE2>();  // the scalar unit is done with the last row's
    DataCopy(row, mask_[uint64_t{i} * t_.mask_pitch + start],
             static_cast<uint32_t>(align_up(count, 8)));
    wait_pipe<HardEvent::MTE2_S>();
    return row;
  }

  TPipe pipe_;
  TQue<TPosition::VECOUT, 1> out_;
  TBuf<TPosition::VECCALC> mask_row_;
  OnlineAttention<T> attention_;
  GlobalTensor<T> query_;
  GlobalTensor<T> key_;
  GlobalTensor<T> value_;
  GlobalTensor<float> mask_;
  GlobalTensor<int32_t> lengths_;
  GlobalTensor<T> out_gm_;
  LlamaAttentionTiling t_{};
  uint32_t first_unit_ = 0;
  uint32_t units_ = 0;
  uint16_t group_blocks_ = 0;
  uint16_t query_gap_ = 0;
  uint16_t kv_gap_ = 0;
};

template <typename T>
__aicore__ inline void run_llama_attention(GM_ADDR query, GM_ADDR keys, GM_ADDR values,
                                           GM_ADDR mask, GM_ADDR lengths, GM_ADDR out,
                                           GM_ADDR tiling) {
  run_kernel<LlamaAttentionKernel<T>>(load_tiling<LlamaAttentionTiling>(tiling), query, keys,
                                      values, mask, lengths, out);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_LLAMA_ATTENTION_RUN kiln::ascend::run_llama_attention
KILN_ASCEND_DEFINE_KERNELS(KILN_LLAMA_ATTENTION)
