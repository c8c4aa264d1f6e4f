// Ascend C paged attention (decode) on the vector unit, vLLM's v1 and v2
// (paged_attention_tiling.h).
//
// kAttend: for each (work item, kv head), its query heads attend to the item's tokens (a whole
// context, or one partition of a long one), gathered through the block table, with the online
// softmax of common/online_attention.h (in float). A chunk of tokens' key and value rows is
// staged and widened once for all the group's query heads: from the flash layout one DataCopy
// per row, at the block the table names; from vLLM's paged layout, whose rows are spread over a
// block's tiles in 16-byte pieces (keys) and single elements (values), finer than a DataCopy
// moves, the block's two tiles come into UB and the scalar unit gathers each token's rows. A
// whole context's result is rounded once into out; a partition's goes to its records in float.
//
// kCombine: for each (partitioned sequence, query head), the partitions' results weighted by
// their sums rescaled to the largest maximum, over those weights' total, rounded once into out.
#include "kernel_operator.h"
#include "kernels/ascend/common/gm_rows.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/online_attention.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
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
                              GM_ADDR work, GM_ADDR records, GM_ADDR out,
                              const PagedAttentionTiling& tiling) {
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
    work_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(work));
    records_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(records));
    out_gm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(out));
    pipe_.InitBuffer(out_, 1, t_.group * t_.head_size * sizeof(T));
    pipe_.InitBuffer(record_tile_, t_.group * (kRecordHeader + t_.head_size) * sizeof(float));
    if (t_.layout == kPagedLayout) {
      pipe_.InitBuffer(key_tile_, t_.head_size * t_.block_size * sizeof(T));
      pipe_.InitBuffer(value_tile_, t_.head_size * t_.block_size * sizeof(T));
    }
    attention_.Init(pipe_, t_.group, t_.head_size, t_.token_chunk);
  }

  __aicore__ inline void Process() {
    for (uint32_t u = 0; u < units_; ++u) {
      const uint32_t unit = first_unit_ + u;
      Unit(unit / t_.kv_heads, unit % t_.kv_heads);
    }
  }

 private:
  // Work item `item`, kv head g: its tokens, then out[s, g * group .. (g + 1) * group) or the
  // partition's records of those heads.
  __aicore__ inline void Unit(uint32_t item, uint32_t g) {
    const uint32_t s = static_cast<uint32_t>(work_.GetValue(3 * item));
    const uint32_t partition = static_cast<uint32_t>(work_.GetValue(3 * item + 1));
    const int32_t first_record = work_.GetValue(3 * item + 2);
    const uint32_t length = static_cast<uint32_t>(lens_.GetValue(s));
    const uint32_t begin = first_record < 0 ? 0 : partition * t_.partition;
    const uint32_t left = length - begin;
    const uint32_t end = first_record < 0 || left < t_.partition ? length : begin + t_.partition;
    const uint32_t rows = t_.group * t_.head_size;
    const uint64_t first_row = uint64_t{s} * t_.heads + uint64_t{g} * t_.group;
    DataCopy(attention_.QueryStage(), query_[gm_row_offset(t_.query, first_row)], rows);
    attention_.QueryStaged(t_.group);
    loaded_block_ = -1;
    for (uint32_t start = begin; start < end; start += t_.token_chunk) {
      const uint32_t count = end - start < t_.token_chunk ? end - start : t_.token_chunk;
      if (t_.layout == kPagedLayout) {
        GatherChunk(s, g, start, count);
      } else {
        StageChunk(s, g, start, count);
      }
      for (uint32_t h = 0; h < t_.group; ++h) {
        const uint32_t head = g * t_.group + h;
        const AlibiBias bias{t_.has_alibi != 0 ? slopes_.GetValue(head) : 0.0f,
                             static_cast<int64_t>(start) - static_cast<int64_t>(length) + 1};
        attention_.Attend(h, count, t_.scale, bias);
      }
    }
    if (first_record < 0) {
      LocalTensor<T> y = out_.template AllocTensor<T>();
      attention_.Finish(y, t_.group);
      out_.EnQue(y);
      copy_out(out_gm_[gm_row_offset(t_.out, first_row)], out_, rows);
      return;
    }
    WriteRecords(static_cast<uint64_t>(first_record) + partition, first_row);
  }

  // The partition's records of the group's heads: header (maximum, sum) and result in float.
  __aicore__ inline void WriteRecords(uint64_t record, uint64_t first_row) {
    const uint32_t width = kRecordHeader + t_.head_size;
    LocalTensor<float> tile = record_tile_.Get<float>();
    // The last unit's records have left UB before the vector and scalar units refill it.
    wait_pipe<HardEvent::MTE3_V>();
    wait_pipe<HardEvent::MTE3_S>();
    attention_.FinishFloat(tile[kRecordHeader], t_.group, width);
    for (uint32_t h = 0; h < t_.group; ++h) {
      tile.SetValue(h * width, attention_.RunningMax(h));
      tile.SetValue(h * width + 1, attention_.RunningSum(h));
    }
    wait_pipe<HardEvent::V_MTE3>();
    wait_pipe<HardEvent::S_MTE3>();
    const uint64_t heads_row = record * t_.heads + (first_row % t_.heads);
    DataCopy(records_[heads_row * width], tile, t_.group * width);
  }

  // Flash layout: the key and value rows of tokens [start, start + count) of sequence s, kv
  // head g, one DataCopy per row at the block the table names.
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

  // Paged layout: the same rows gathered on the scalar unit from their blocks' tiles (key
  // element e of a token at offset o at (e / x) * block_size * x + o * x + e % x of the key
  // tile, value element e at e * block_size + o of the value tile), each tile copied in once.
  __aicore__ inline void GatherChunk(uint32_t s, uint32_t g, uint32_t start, uint32_t count) {
    const uint32_t d = t_.head_size;
    const uint32_t bs = t_.block_size;
    LocalTensor<T> keys;
    LocalTensor<T> values;
    attention_.StageChunk(keys, values);
    // The vector unit has read the last chunk's rows before the scalar unit overwrites them.
    wait_pipe<HardEvent::V_S>();
    LocalTensor<T> key_tile = key_tile_.Get<T>();
    LocalTensor<T> value_tile = value_tile_.Get<T>();
    // A run of the chunk's tokens in one block at a time: its keys, then its values (the scalar
    // writes then extend two runs of UB, not one run per row).
    for (uint32_t j = 0; j < count;) {
      const uint32_t token = start + j;
      const uint32_t offset = token % bs;
      const uint32_t run = count - j < bs - offset ? count - j : bs - offset;
      const int32_t block = tables_.GetValue(uint64_t{s} * t_.max_blocks + token / bs);
      if (block != loaded_block_) {
        const uint64_t tile = (uint64_t(block) * t_.kv_heads + g) * d * bs;
        wait_pipe<HardEvent::S_MTE2>();  // the scalar unit is done with the last tiles
        DataCopy(key_tile, key_[tile], d * bs);
        DataCopy(value_tile, value_[tile], d * bs);
        wait_pipe<HardEvent::MTE2_S>();
        loaded_block_ = block;
      }
      for (uint32_t i = 0; i < run; ++i) {
        for (uint32_t e = 0; e < d; ++e) {
          const uint32_t at = (e / t_.x) * bs * t_.x + (offset + i) * t_.x + e % t_.x;
          keys.SetValue((j + i) * d + e, key_tile.GetValue(at));
        }
      }
      for (uint32_t i = 0; i < run; ++i) {
        for (uint32_t e = 0; e < d; ++e) {
          values.SetValue((j + i) * d + e, value_tile.GetValue(e * bs + offset + i));
        }
      }
      j += run;
    }
    wait_pipe<HardEvent::S_V>();  // the rows reach the vector unit, which widens them
    attention_.ChunkStaged(count);
  }

  TPipe pipe_;
  TQue<TPosition::VECOUT, 1> out_;
  TBuf<TPosition::VECCALC> record_tile_;
  TBuf<TPosition::VECCALC> key_tile_;
  TBuf<TPosition::VECCALC> value_tile_;
  OnlineAttention<T> attention_;
  GlobalTensor<T> query_;
  GlobalTensor<T> key_;
  GlobalTensor<T> value_;
  GlobalTensor<int32_t> tables_;
  GlobalTensor<int32_t> lens_;
  GlobalTensor<float> slopes_;
  GlobalTensor<int32_t> work_;
  GlobalTensor<float> records_;
  GlobalTensor<T> out_gm_;
  PagedAttentionTiling t_{};
  uint32_t first_unit_ = 0;
  uint32_t units_ = 0;
  int32_t loaded_block_ = -1;  // the block whose tiles are in UB
};

// kCombine: for each (partitioned sequence, query head), its partitions' records combined.
template <typename T>
class PagedCombineKernel {
  static constexpr bool kWide = !std::is_same_v<T, float>;

 public:
  __aicore__ inline void Init(GM_ADDR work, GM_ADDR records, GM_ADDR out,
                              const PagedAttentionTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.units, t_.block_units);
    first_unit_ = static_cast<uint32_t>(range.start);
    units_ = static_cast<uint32_t>(range.length);
    if (units_ == 0) return;
    work_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(work));
    records_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(records));
    out_gm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(out));
    pipe_.InitBuffer(row_, t_.head_size * sizeof(float));
    pipe_.InitBuffer(acc_, t_.head_size * sizeof(float));
    pipe_.InitBuffer(scratch_, 8 * sizeof(float));
    pipe_.InitBuffer(out_, 1, t_.head_size * sizeof(T));
  }

  __aicore__ inline void Process() {
    for (uint32_t u = 0; u < units_; ++u) {
      const uint32_t unit = first_unit_ + u;
      Unit(unit / t_.heads, unit % t_.heads);
    }
  }

 private:
  __aicore__ inline void Unit(uint32_t item, uint32_t h) {
    const uint32_t s = static_cast<uint32_t>(work_.GetValue(3 * item));
    const uint32_t parts = static_cast<uint32_t>(work_.GetValue(3 * item + 1));
    const uint64_t first_record = static_cast<uint64_t>(work_.GetValue(3 * item + 2));
    const uint32_t d = t_.head_size;
    const uint64_t width = kRecordHeader + d;
    float largest = records_.GetValue((first_record * t_.heads + h) * width);
    for (uint32_t p = 1; p < parts; ++p) {
      const float maximum = records_.GetValue(((first_record + p) * t_.heads + h) * width);
      if (maximum > largest) largest = maximum;
    }
    LocalTensor<float> acc = acc_.Get<float>();
    LocalTensor<float> row = row_.Get<float>();
    LocalTensor<float> scratch = scratch_.Get<float>();
    Duplicate(acc, 0.0f, static_cast<int32_t>(d));
    PipeBarrier<PIPE_V>();
    float total = 0.0f;
    for (uint32_t p = 0; p < parts; ++p) {
      const uint64_t record = ((first_record + p) * t_.heads + h) * width;
      const float sum = records_.GetValue(record + 1);
      if (sum == 0.0f) continue;  // no token of the partition had weight
      const float weight = sum * vector_exp(scratch, records_.GetValue(record) - largest);
      total += weight;
      wait_pipe<HardEvent::V_MTE2>();  // the last row is added before MTE2 refills it
      DataCopy(row, records_[record + kRecordHeader], d);
      wait_pipe<HardEvent::MTE2_V>();
      Muls(row, row, weight, static_cast<int32_t>(d));
      PipeBarrier<PIPE_V>();
      Add(acc, acc, row, static_cast<int32_t>(d));
      PipeBarrier<PIPE_V>();
    }
    if (total > 0.0f) {
      Muls(acc, acc, 1.0f / total, static_cast<int32_t>(d));
      PipeBarrier<PIPE_V>();
    }
    LocalTensor<T> y = out_.template AllocTensor<T>();
    if constexpr (kWide) {
      narrow(y, acc, d);
    } else {
      Adds(y, acc, 0.0f, static_cast<int32_t>(d));
    }
    out_.EnQue(y);
    copy_out(out_gm_[gm_row_offset(t_.out, uint64_t{s} * t_.heads + h)], out_, d);
  }

  TPipe pipe_;
  TBuf<TPosition::VECCALC> row_;
  TBuf<TPosition::VECCALC> acc_;
  TBuf<TPosition::VECCALC> scratch_;
  TQue<TPosition::VECOUT, 1> out_;
  GlobalTensor<int32_t> work_;
  GlobalTensor<float> records_;
  GlobalTensor<T> out_gm_;
  PagedAttentionTiling t_{};
  uint32_t first_unit_ = 0;
  uint32_t units_ = 0;
};

template <typename T>
__aicore__ inline void run_paged_attention(GM_ADDR query, GM_ADDR key_cache, GM_ADDR value_cache,
                                           GM_ADDR block_tables, GM_ADDR context_lens,
                                           GM_ADDR slopes, GM_ADDR work, GM_ADDR records,
                                           GM_ADDR out, GM_ADDR tiling) {
  const PagedAttentionTiling t = load_tiling<PagedAttentionTiling>(tiling);
  if (t.phase == kCombine) {
    run_kernel<PagedCombineKernel<T>>(t, work, records, out);
    return;
  }
  run_kernel<PagedAttentionKernel<T>>(t, query, key_cache, value_cache, block_tables, context_lens,
                                      slopes, work, records, out);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_PAGED_ATTENTION_RUN kiln::ascend::run_paged_attention
KILN_ASCEND_DEFINE_KERNELS(KILN_PAGED_ATTENTION)
