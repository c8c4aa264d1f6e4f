// kiln::paged_attention.out: one decode step of attention over a paged KV cache (vLLM's
// paged_attention_v1). Sequence s attends with query[s] [num_heads, head_size] to its first
// context_lens[s] cached tokens: token j lives in block block_tables[s][j / block_size] at offset
// j % block_size of key_cache / value_cache [num_blocks, block_size, num_kv_heads, head_size].
// Query head h reads kv head h / (num_heads / num_kv_heads) (grouped-query attention). Logits
// are scale * q.k (+ alibi_slopes[h] * (j - context_len + 1)); the softmax and the weighted sum
// run in float (an online softmax, one chunk of tokens at a time); a sequence with no context
// gets zeros.
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/attention.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// A sequence's cached rows: token t lives in block blocks[t / block_size] at offset
// t % block_size, kv head `head`.
struct PagedRows {
  const char* key_cache;
  const char* value_cache;
  ScalarType type;
  int64_t block_size;
  int64_t kv_heads;
  int64_t head_size;
  int64_t head;
  const int32_t* narrow_blocks;  // Int tables
  const int64_t* wide_blocks;    // Long tables

  const float* key(int64_t token, float* buffer) const { return row(key_cache, token, buffer); }
  const float* value(int64_t token, float* buffer) const { return row(value_cache, token, buffer); }

 private:
  // The row as float: in place for Float, else converted into `buffer`.
  const float* row(const char* base, int64_t token, float* buffer) const {
    const int64_t index = token / block_size;
    const int64_t block = narrow_blocks != nullptr ? narrow_blocks[index] : wide_blocks[index];
    const int64_t offset =
        ((block * block_size + token % block_size) * kv_heads + head) * head_size;
    if (type == ScalarType::Float) return reinterpret_cast<const float*>(base) + offset;
    load_floats(base + offset * element_size(type), type, 1, head_size, buffer);
    return buffer;
  }
};

// Alibi: slopes[h] * (t - length + 1), the distance back from the sequence's last token.
struct AlibiBias {
  const float* slopes;
  int64_t length;

  float operator()(int64_t h, int64_t token) const {
    return slopes[h] * static_cast<float>(token - length + 1);
  }
};

}  // namespace

Tensor& paged_attention_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                            const Tensor& value_cache, const Tensor& block_tables,
                            const Tensor& context_lens, double scale,
                            const std::optional<Tensor>& alibi_slopes, Tensor& out) {
  if (!check_paged_attention_arguments(ctx, query, key_cache, value_cache, block_tables,
                                       context_lens, alibi_slopes) ||
      !check_tensor(ctx, out, "out") || !check_out_dtype_is(ctx, out, query.scalar_type())) {
    return out;
  }
  const int64_t seqs = query.size(0);
  const int64_t heads = query.size(1);
  const int64_t head_size = query.size(2);
  const int64_t block_size = key_cache.size(1);
  const int64_t kv_heads = key_cache.size(2);
  if (!check_attention_head_size(ctx, head_size)) return out;
  const int64_t max_blocks = block_tables.size(1);
  if (!resize_or_fail(ctx, out, query.sizes())) return out;
  const ScalarType type = query.scalar_type();
  const size_t size = element_size(type);
  const char* q_base = static_cast<const char*>(query.const_data_ptr());
  char* out_base = static_cast<char*>(out.mutable_data_ptr());
  const bool narrow = block_tables.scalar_type() == ScalarType::Int;
  const int64_t group = heads / kv_heads;
  float q[kAttentionHeadBlock * kMaxAttentionHeadSize];
  float rows[kAttentionHeadBlock * kMaxAttentionHeadSize];
  float slopes[kAttentionHeadBlock];
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t length = index_at(context_lens, s);
    PagedRows cache{static_cast<const char*>(key_cache.const_data_ptr()),
                    static_cast<const char*>(value_cache.const_data_ptr()),
                    key_cache.scalar_type(),
                    block_size,
                    kv_heads,
                    head_size,
                    0,
                    narrow ? block_tables.const_data_ptr<int32_t>() + s * max_blocks : nullptr,
                    narrow ? nullptr : block_tables.const_data_ptr<int64_t>() + s * max_blocks};
    // Blocks of up to kAttentionHeadBlock query heads, each within one kv head's group.
    for (int64_t h0 = 0; h0 < heads;) {
      const int64_t group_end = (h0 / group + 1) * group;
      const int64_t count =
          group_end - h0 < kAttentionHeadBlock ? group_end - h0 : kAttentionHeadBlock;
      const int64_t offset = (s * heads + h0) * head_size;
      load_floats(q_base + offset * size, type, 1, count * head_size, q);
      for (int64_t h = 0; h < count; ++h) {
        slopes[h] = alibi_slopes.has_value() ? alibi_slopes->const_data_ptr<float>()[h0 + h] : 0.0f;
      }
      cache.head = h0 / group;
      attend(cache, q, count, head_size, length, static_cast<float>(scale),
             AlibiBias{slopes, length}, rows);
      store_floats(rows, count * head_size, type, out_base + offset * size);
      h0 += count;
    }
  }
  return out;
}

}  // namespace kiln::portable::native
