// kiln::paged_attention.out: one decode step of attention over a paged KV cache (vLLM's
// paged_attention_v1). Sequence s attends with query[s] [num_heads, head_size] to its first
// context_lens[s] cached tokens: token j lives in block block_tables[s][j / block_size] at offset
// j % block_size of key_cache / value_cache [num_blocks, block_size, num_kv_heads, head_size].
// Query head h reads kv head h / (num_heads / num_kv_heads) (grouped-query attention). Logits
// are scale * q.k (+ alibi_slopes[h] * (j - context_len + 1)); the softmax and the weighted sum
// run in float (an online softmax, one chunk of tokens at a time); a sequence with no context
// gets zeros.
#include <cmath>
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Head sizes up to this fit the float rows kept on the stack.
constexpr int64_t kMaxHeadSize = 1024;
// Tokens whose logits are computed before one softmax rescale.
constexpr int64_t kTokenChunk = 64;

struct CacheView {
  const char* key;
  const char* value;
  ScalarType type;
  int64_t block_size;
  int64_t kv_heads;
  int64_t head_size;

  // Token row (block, offset, kv head) of key or value, as float: in place for Float, else
  // converted into `buffer`.
  const float* row(const char* base, int64_t block, int64_t offset, int64_t head,
                   float* buffer) const {
    const int64_t index = ((block * block_size + offset) * kv_heads + head) * head_size;
    if (type == ScalarType::Float) return reinterpret_cast<const float*>(base) + index;
    load_floats(base + index * element_size(type), type, 1, head_size, buffer);
    return buffer;
  }
};

// Query heads of one kv group attended to together, so each cached key and value row is read
// (and converted) once for all of them.
constexpr int64_t kHeadBlock = 4;

// One sequence's token -> block lookup.
struct BlockTable {
  const int32_t* narrow;  // Int tables
  const int64_t* wide;    // Long tables

  int64_t operator[](int64_t index) const {
    return narrow != nullptr ? narrow[index] : wide[index];
  }
};

// out[h] = softmax(logits[h]) . V for `count` (<= kHeadBlock) query heads q[h] (head_size floats
// each) that share kv head `kv_head`, over `length` tokens.
void attend(const CacheView& cache, const float* q, int64_t count, const BlockTable& blocks,
            int64_t length, int64_t kv_head, float scale, const float* slopes, float* out) {
  const int64_t d = cache.head_size;
  float buffer[kMaxHeadSize];
  float logits[kHeadBlock][kTokenChunk];
  float running_max[kHeadBlock];
  float running_sum[kHeadBlock];
  for (int64_t h = 0; h < count; ++h) {
    running_max[h] = -INFINITY;
    running_sum[h] = 0.0f;
    for (int64_t i = 0; i < d; ++i) out[h * d + i] = 0.0f;
  }
  for (int64_t start = 0; start < length; start += kTokenChunk) {
    const int64_t m = length - start < kTokenChunk ? length - start : kTokenChunk;
    float chunk_max[kHeadBlock];
    for (int64_t h = 0; h < count; ++h) chunk_max[h] = -INFINITY;
    for (int64_t j = 0; j < m; ++j) {
      const int64_t token = start + j;
      const float* k = cache.row(cache.key, blocks[token / cache.block_size],
                                 token % cache.block_size, kv_head, buffer);
      const float distance = static_cast<float>(token - length + 1);
      for (int64_t h = 0; h < count; ++h) {
        const float logit = scale * dot_row(q + h * d, k, d) + slopes[h] * distance;
        logits[h][j] = logit;
        chunk_max[h] = logit > chunk_max[h] ? logit : chunk_max[h];
      }
    }
    for (int64_t h = 0; h < count; ++h) {
      const float new_max = chunk_max[h] > running_max[h] ? chunk_max[h] : running_max[h];
      const float rescale = exp_float(running_max[h] - new_max);  // 0 on the first chunk
      running_sum[h] *= rescale;
      scale_row(out + h * d, rescale, out + h * d, d);
      running_max[h] = new_max;
    }
    for (int64_t j = 0; j < m; ++j) {
      const int64_t token = start + j;
      const float* v = cache.row(cache.value, blocks[token / cache.block_size],
                                 token % cache.block_size, kv_head, buffer);
      for (int64_t h = 0; h < count; ++h) {
        const float p = exp_float(logits[h][j] - running_max[h]);
        running_sum[h] += p;
        axpy_row(p, v, out + h * d, d);
      }
    }
  }
  for (int64_t h = 0; h < count && length > 0; ++h) {
    scale_row(out + h * d, 1.0f / running_sum[h], out + h * d, d);
  }
}

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
  KILN_KERNEL_CHECK_MSG(ctx, head_size <= kMaxHeadSize, NotSupported, out,
                        "head_size %lld is larger than the %lld this kernel supports",
                        static_cast<long long>(head_size), static_cast<long long>(kMaxHeadSize));
  const int64_t max_blocks = block_tables.size(1);
  if (!resize_or_fail(ctx, out, query.sizes())) return out;
  const CacheView cache{static_cast<const char*>(key_cache.const_data_ptr()),
                        static_cast<const char*>(value_cache.const_data_ptr()),
                        key_cache.scalar_type(),
                        block_size,
                        kv_heads,
                        head_size};
  const ScalarType type = query.scalar_type();
  const size_t size = element_size(type);
  const char* q_base = static_cast<const char*>(query.const_data_ptr());
  char* out_base = static_cast<char*>(out.mutable_data_ptr());
  const bool narrow = block_tables.scalar_type() == ScalarType::Int;
  const int64_t group = heads / kv_heads;
  float q[kHeadBlock * kMaxHeadSize];
  float rows[kHeadBlock * kMaxHeadSize];
  float slopes[kHeadBlock];
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t length = index_at(context_lens, s);
    const BlockTable blocks{
        narrow ? block_tables.const_data_ptr<int32_t>() + s * max_blocks : nullptr,
        narrow ? nullptr : block_tables.const_data_ptr<int64_t>() + s * max_blocks};
    // Blocks of up to kHeadBlock query heads, each within one kv head's group.
    for (int64_t h0 = 0; h0 < heads;) {
      const int64_t group_end = (h0 / group + 1) * group;
      const int64_t count = group_end - h0 < kHeadBlock ? group_end - h0 : kHeadBlock;
      const int64_t offset = (s * heads + h0) * head_size;
      load_floats(q_base + offset * size, type, 1, count * head_size, q);
      for (int64_t h = 0; h < count; ++h) {
        slopes[h] = alibi_slopes.has_value() ? alibi_slopes->const_data_ptr<float>()[h0 + h] : 0.0f;
      }
      attend(cache, q, count, blocks, length, h0 / group, static_cast<float>(scale), slopes, rows);
      store_floats(rows, count * head_size, type, out_base + offset * size);
      h0 += count;
    }
  }
  return out;
}

}  // namespace kiln::portable::native
