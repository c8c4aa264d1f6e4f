// llama::custom_sdpa's attention and update_cache's row copies.
//
// The attention runs in blocks of up to kBlockRows (query row, head) pairs that read one kv head:
// in prefill the rows of one head (many query rows), in decode the heads of one kv head's group
// at one query row. A block's logits and weighted sums are gemm products over chunks of
// kAttentionTokenChunk positions, each key and value row read once for the whole block, with an
// online softmax between the products, all in float.
#include "kernels/portable/cpu/util/llm/sdpa.h"

#include <cmath>
#include <cstring>

#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"
#include "kernels/portable/cpu/util/llm/attention.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/core/half.h"

namespace kiln::portable {
namespace {

// (query row, head) pairs of one block: the rows of its gemm products.
constexpr int64_t kBlockRows = 16;
// Query rows from which blocks run along a head's rows (prefill); fewer run along heads.
constexpr int64_t kRowsAlongQueries = 8;

// Value `index` of an additive mask row of dtype `type`, as float.
float mask_value(const char* row, ScalarType type, int64_t index) {
  switch (type) {
    case ScalarType::Half:
      return static_cast<float>(reinterpret_cast<const Half*>(row)[index]);
    case ScalarType::BFloat16:
      return static_cast<float>(reinterpret_cast<const BFloat16*>(row)[index]);
    default:
      return reinterpret_cast<const float*>(row)[index];
  }
}

// The attention's operands.
struct Attention {
  const char* q;
  const char* k;
  const char* v;
  char* out;
  ScalarType type;
  const char* mask;  // nullptr: none
  ScalarType mask_type;
  int64_t queries, heads, d, positions, kv_heads, start_pos;
  bool causal;
  float scale;

  // Positions query row i attends to: [0, length(i)).
  int64_t length(int64_t i) const {
    return mask != nullptr ? positions : (causal ? start_pos + i + 1 : start_pos + queries);
  }
};

// One block: `rows` pairs of batch b from (query row i, head h), stepping `step` query rows and
// `head_step` heads per row (one of them 0).
struct Block {
  int64_t b, i, h, rows, step, head_step;

  int64_t query_row(int64_t r) const { return i + r * step; }
  int64_t element(const Attention& a, int64_t r) const {  // of the row's first value
    return ((b * a.queries + query_row(r)) * a.heads + h + r * head_step) * a.d;
  }
};

void attend_block(const Attention& a, const Block& block) {
  const KernelRuntimeContext one_thread;  // blocks run side by side
  const int64_t d = a.d;
  const int64_t rows = block.rows;
  const int64_t g = block.h / (a.heads / a.kv_heads);
  const int64_t token_stride = a.kv_heads * d;
  const size_t size = element_size(a.type);
  float logits[kBlockRows * kAttentionTokenChunk];
  float acc[kBlockRows * kMaxAttentionHeadSize];
  float sums[kBlockRows * kMaxAttentionHeadSize];
  float running_max[kBlockRows];
  float running_sum[kBlockRows];
  for (int64_t r = 0; r < rows; ++r) {
    running_max[r] = -INFINITY;
    running_sum[r] = 0.0f;
  }
  for (int64_t e = 0; e < rows * d; ++e) acc[e] = 0.0f;
  const int64_t row_stride = (block.step * a.heads + block.head_step) * d;
  const GemmInput queries{a.q + block.element(a, 0) * size, a.type, row_stride, 1};
  const int64_t end = a.length(block.query_row(rows - 1));  // the longest row's
  GemmEpilogue scaled;
  scaled.alpha = Scalar(static_cast<double>(a.scale));
  for (int64_t t0 = 0; t0 < end; t0 += kAttentionTokenChunk) {
    const int64_t n = end - t0 < kAttentionTokenChunk ? end - t0 : kAttentionTokenChunk;
    const int64_t kv_offset = ((block.b * a.positions + t0) * a.kv_heads + g) * d;
    gemm(one_thread, rows, n, d, queries, {a.k + kv_offset * size, a.type, 1, token_stride},
         {logits, ScalarType::Float, kAttentionTokenChunk}, scaled);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = block.query_row(r);
      const int64_t limit = a.length(i) - t0;
      float* row = logits + r * kAttentionTokenChunk;
      const char* mask_row =
          a.mask == nullptr ? nullptr : a.mask + (i * a.positions + t0) * element_size(a.mask_type);
      float chunk_max = -INFINITY;
      for (int64_t j = 0; j < n; ++j) {
        if (j >= limit) {
          row[j] = -INFINITY;
        } else if (mask_row != nullptr) {
          row[j] += mask_value(mask_row, a.mask_type, j);
        }
        chunk_max = row[j] > chunk_max ? row[j] : chunk_max;
      }
      const float new_max = chunk_max > running_max[r] ? chunk_max : running_max[r];
      if (new_max == -INFINITY) {  // nothing but masked positions so far: every weight is 0
        for (int64_t j = 0; j < n; ++j) row[j] = 0.0f;
        continue;
      }
      const float rescale = exp_float(running_max[r] - new_max);  // 0 on the first chunk
      running_sum[r] *= rescale;
      scale_row(acc + r * d, rescale, acc + r * d, d);
      running_max[r] = new_max;
      for (int64_t j = 0; j < n; ++j) {
        row[j] = exp_float(row[j] - new_max);
        running_sum[r] += row[j];
      }
    }
    gemm(one_thread, rows, d, n, {logits, ScalarType::Float, kAttentionTokenChunk, 1},
         {a.v + kv_offset * size, a.type, token_stride, 1}, {sums, ScalarType::Float, d});
    add_rows(acc, sums, acc, rows * d);
  }
  // A row whose every position is masked keeps zeros, as torch's attention gives.
  for (int64_t r = 0; r < rows; ++r) {
    if (running_sum[r] > 0.0f) scale_row(acc + r * d, 1.0f / running_sum[r], acc + r * d, d);
    store_floats(acc + r * d, d, a.type, a.out + block.element(a, r) * size);
  }
}

}  // namespace

void run_custom_sdpa(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                     const Tensor& value, int64_t start_pos, const std::optional<Tensor>& attn_mask,
                     bool is_causal, float scale, Tensor& out) {
  const Attention a{
      static_cast<const char*>(query.const_data_ptr()),
      static_cast<const char*>(key.const_data_ptr()),
      static_cast<const char*>(value.const_data_ptr()),
      static_cast<char*>(out.mutable_data_ptr()),
      query.scalar_type(),
      attn_mask.has_value() ? static_cast<const char*>(attn_mask->const_data_ptr()) : nullptr,
      attn_mask.has_value() ? attn_mask->scalar_type() : ScalarType::Float,
      query.size(1),
      query.size(2),
      query.size(3),
      key.size(1),
      key.size(2),
      start_pos,
      is_causal,
      scale};
  const int64_t batch = query.size(0);
  if (a.queries >= kRowsAlongQueries) {
    // Prefill: blocks of a head's query rows.
    const int64_t blocks = (a.queries + kBlockRows - 1) / kBlockRows;
    parallel_for(ctx, 0, batch * a.heads * blocks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t first = u % blocks * kBlockRows;
        const int64_t rows = a.queries - first < kBlockRows ? a.queries - first : kBlockRows;
        attend_block(a, {u / blocks / a.heads, first, u / blocks % a.heads, rows, 1, 0});
      }
    });
    return;
  }
  // Decode: blocks of a kv head's query heads at one query row.
  const int64_t group = a.heads / a.kv_heads;
  const int64_t blocks = (group + kBlockRows - 1) / kBlockRows;
  const int64_t units_per_row = a.kv_heads * blocks;
  parallel_for(
      ctx, 0, batch * a.queries * units_per_row, items_grain(a.positions * a.d * 2),
      [&](int64_t begin, int64_t end) {
        for (int64_t u = begin; u < end; ++u) {
          const int64_t row = u / units_per_row;  // b * S + i
          const int64_t first = u % units_per_row / blocks * group + u % blocks * kBlockRows;
          const int64_t group_end = (first / group + 1) * group;
          const int64_t rows = group_end - first < kBlockRows ? group_end - first : kBlockRows;
          attend_block(a, {row / a.queries, row % a.queries, first, rows, 0, 1});
        }
      });
}

void write_cache_rows(const Tensor& value, Tensor& cache, int64_t start_pos) {
  const int64_t positions = value.size(1);
  const size_t row_bytes = value.size(2) * value.size(3) * value.element_size();
  const char* src = static_cast<const char*>(value.const_data_ptr());
  char* dst = static_cast<char*>(cache.mutable_data_ptr());
  for (int64_t b = 0; b < value.size(0); ++b) {
    // memmove: a caller may pass the cache's own rows.
    std::memmove(dst + (b * cache.size(1) + start_pos) * row_bytes, src + b * positions * row_bytes,
                 positions * row_bytes);
  }
}

}  // namespace kiln::portable
