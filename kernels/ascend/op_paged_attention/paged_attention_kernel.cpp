// Ascend C paged attention (decode) on the vector unit: for each (sequence, kv head), its query
// heads attend to the sequence's first context_lens[s] cached tokens, gathered through the block
// table, with the online softmax of common/online_attention.h (in float, the result rounded once
// to the dtype). A chunk of tokens' key and value rows is copied in, one DataCopy per row at the
// block the table names, and widened once for all the group's query heads.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/online_attention.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/op_paged_attention/paged_attention_kernels.h"
#include "kernels/ascend/op_paged_attention/paged_attention_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

// Alibi: slope * (token - length + 1), the distance back from the sequence's last token, for
// the tokens of a chunk that starts at token `start`.
struct AlibiBias {
  float slope;
  int64_t first_distance;  // start - length + 1

  __aicore__ inline float operator()(uint32_t j) const {
    return slope * static_cast<float>(first_distance + j);
  }
};

template <typename T>
class PagedAttentionKernel {
 public:
  __aicore__ inline void Init(GM_ADDR query, GM_ADDR key_cache, GM_ADDR value_cache,
                              GM_ADDR block_tables, GM_ADDR context_lens, GM_ADDR slopes,
                              GM_ADDR out, const PagedAttentionTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.units, t_.block_units);
    first_unit_ = static_cast<uint32_t>(range.start);
    units_ = static_cast<uint32_t>(range.length);
    if (units_ == 0) return;
    query_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(query));
    key_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(key_cache));
    value_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(value_cache));
    tables_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(block_tables));
    lens_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(context_lens));
    slopes_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(slopes));
    out_gm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(out));
    pipe_.InitBuffer(out_, 1, t_.group * t_.head_size * sizeof(T));
    attention_.Init(pipe_, t_.group, t_.head_size, t_.token_chunk);
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
    const uint32_t rows = t_.group * t_.head_size;
    const uint64_t first_row = (uint64_t{s} * t_.heads + uint64_t{g} * t_.group) * t_.head_size;
    const uint32_t length = static_cast<uint32_t>(lens_.GetValue(s));
    DataCopy(attention_.QueryStage(), query_[first_row], rows);
    attention_.QueryStaged(t_.group);
    for (uint32_t start = 0; start < length; start += t_.token_chunk) {
      const uint32_t count = length - start < t_.token_chunk ? length - start : t_.token_chunk;
      StageChunk(s, g, start, count);
      for (uint32_t h = 0; h < t_.group; ++h) {
        const uint32_t head = g * t_.group + h;
        const AlibiBias bias{t_.has_alibi != 0 ? slopes_.GetValue(head) : 0.0f,
                             static_cast<int64_t>(start) - static_cast<int64_t>(length) + 1};
        attention_.Attend(h, count, t_.scale, bias);
      }
    }
    LocalTensor<T> y = out_.template AllocTensor<T>();
    attention_.Finish(y, t_.group);
    out_.EnQue(y);
    copy_out(out_gm_[first_row], out_, rows);
  }

  // The key and value rows of tokens [start, start + count) of sequence s, kv head g: one
  // DataCopy per row, at the block the table names.
  __aicore__ inline void StageChunk(uint32_t s, uint32_t g, uint32_t start, uint32_t count) {
    const uint32_t d = t_.head_size;
    LocalTensor<T> keys;
    LocalTensor<T> values;
    attention_.StageChunk(keys, values);
    for (uint32_t j = 0; j < count; ++j) {
      const uint32_t token = start + j;
      const int32_t block = tables_.GetValue(uint64_t{s} * t_.max_blocks + token / t_.block_size);
      const uint64_t row =
          ((uint64_t(block) * t_.block_size + token % t_.block_size) * t_.kv_heads + g) * d;
      DataCopy(keys[j * d], key_[row], d);
      DataCopy(values[j * d], value_[row], d);
    }
    attention_.ChunkStaged(count);
  }

  TPipe pipe_;
  TQue<TPosition::VECOUT, 1> out_;
  OnlineAttention<T> attention_;
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
