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
  if (!check_activation(ctx, query, "query") || !check_rank(ctx, query, "query", 3) ||
      !check_activation(ctx, key_cache, "key_cache") ||
      !check_rank(ctx, key_cache, "key_cache", 4) ||
      !check_dtype_matches(ctx, key_cache, "key_cache", query.scalar_type(), "query") ||
      !check_activation(ctx, value_cache, "value_cache") ||
      !check_dtype_matches(ctx, value_cache, "value_cache", query.scalar_type(), "query") ||
      !check_index_tensor(ctx, block_tables, "block_tables", 2) ||
      !check_index_tensor(ctx, context_lens, "context_lens", 1) || !check_tensor(ctx, out, "out") ||
      !check_out_dtype_is(ctx, out, query.scalar_type())) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, value_cache.sizes().equals(key_cache.sizes()), InvalidArgument, out,
                        "value_cache has shape %s but key_cache has shape %s; pass caches of one "
                        "shape [num_blocks, block_size, num_kv_heads, head_size]",
                        format_shape(value_cache.sizes()).text,
                        format_shape(key_cache.sizes()).text);
  const int64_t seqs = query.size(0);
  const int64_t heads = query.size(1);
  const int64_t head_size = query.size(2);
  const int64_t num_blocks = key_cache.size(0);
  const int64_t block_size = key_cache.size(1);
  const int64_t kv_heads = key_cache.size(2);
  KILN_KERNEL_CHECK_MSG(ctx, key_cache.size(3) == head_size, InvalidArgument, out,
                        "query has head_size %lld but key_cache has shape %s ([num_blocks, "
                        "block_size, num_kv_heads, head_size]); pass matching head sizes",
                        static_cast<long long>(head_size), format_shape(key_cache.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, head_size <= kMaxHeadSize, NotSupported, out,
                        "head_size %lld is larger than the %lld this kernel supports",
                        static_cast<long long>(head_size), static_cast<long long>(kMaxHeadSize));
  KILN_KERNEL_CHECK_MSG(ctx, block_size > 0, InvalidArgument, out,
                        "key_cache has shape %s: its block_size (dim 1) must be positive",
                        format_shape(key_cache.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, kv_heads > 0 && heads % kv_heads == 0, InvalidArgument, out,
                        "query has %lld heads, not a multiple of the caches' %lld kv heads",
                        static_cast<long long>(heads), static_cast<long long>(kv_heads));
  if (!check_size(ctx, block_tables, "block_tables", 0, seqs, "num_seqs") ||
      !check_size(ctx, context_lens, "context_lens", 0, seqs, "num_seqs")) {
    return out;
  }
  if (alibi_slopes.has_value()) {
    if (!check_tensor(ctx, *alibi_slopes, "alibi_slopes") ||
        !check_rank(ctx, *alibi_slopes, "alibi_slopes", 1) ||
        !check_dtype_matches(ctx, *alibi_slopes, "alibi_slopes", ScalarType::Float, "a slope") ||
        !check_size(ctx, *alibi_slopes, "alibi_slopes", 0, heads, "num_heads")) {
      return out;
    }
  }
  const int64_t max_blocks = block_tables.size(1);
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t length = index_at(context_lens, s);
    KILN_KERNEL_CHECK_MSG(ctx, length >= 0 && length <= max_blocks * block_size, InvalidArgument,
                          out,
                          "context_lens[%lld] = %lld is outside [0, %lld], what %lld blocks of "
                          "%lld tokens in block_tables hold",
                          static_cast<long long>(s), static_cast<long long>(length),
                          static_cast<long long>(max_blocks * block_size),
                          static_cast<long long>(max_blocks), static_cast<long long>(block_size));
    const int64_t used = (length + block_size - 1) / block_size;
    for (int64_t b = 0; b < used; ++b) {
      const int64_t block = index_at(block_tables, s * max_blocks + b);
      KILN_KERNEL_CHECK_MSG(ctx, block >= 0 && block < num_blocks, InvalidArgument, out,
                            "block_tables[%lld][%lld] = %lld is not a block of the caches' %lld",
                            static_cast<long long>(s), static_cast<long long>(b),
                            static_cast<long long>(block), static_cast<long long>(num_blocks));
    }
  }
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
