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

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/convert.h"
#include "kernels/portable/cpu/util/llm.h"
#include "kernels/portable/cpu/util/vec_math.h"
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
    load_row<float>(base + index * element_size(type), type, 1, head_size, buffer);
    return buffer;
  }
};

// out_row = softmax(logits) . V for one query head of one sequence.
void attend(const CacheView& cache, const float* q, const int32_t* blocks32,
            const int64_t* blocks64, int64_t length, int64_t kv_head, float scale,
            float alibi_slope, float* out_row) {
  const int64_t d = cache.head_size;
  float buffer[kMaxHeadSize];
  float logits[kTokenChunk];
  float running_max = -INFINITY;
  float running_sum = 0.0f;
  for (int64_t i = 0; i < d; ++i) out_row[i] = 0.0f;
  for (int64_t start = 0; start < length; start += kTokenChunk) {
    const int64_t m = length - start < kTokenChunk ? length - start : kTokenChunk;
    float chunk_max = -INFINITY;
    for (int64_t j = 0; j < m; ++j) {
      const int64_t token = start + j;
      const int64_t slot = token / cache.block_size;
      const int64_t block = blocks32 != nullptr ? blocks32[slot] : blocks64[slot];
      const float* k = cache.row(cache.key, block, token % cache.block_size, kv_head, buffer);
      logits[j] = scale * dot_row(q, k, d) + alibi_slope * static_cast<float>(token - length + 1);
      chunk_max = logits[j] > chunk_max ? logits[j] : chunk_max;
    }
    const float new_max = chunk_max > running_max ? chunk_max : running_max;
    const float rescale = exp_float(running_max - new_max);  // 0 on the first chunk
    running_sum *= rescale;
    scale_row(out_row, rescale, out_row, d);
    running_max = new_max;
    for (int64_t j = 0; j < m; ++j) {
      const int64_t token = start + j;
      const int64_t slot = token / cache.block_size;
      const int64_t block = blocks32 != nullptr ? blocks32[slot] : blocks64[slot];
      const float p = exp_float(logits[j] - new_max);
      running_sum += p;
      const float* v = cache.row(cache.value, block, token % cache.block_size, kv_head, buffer);
      axpy_row(p, v, out_row, d);
    }
  }
  if (length > 0) scale_row(out_row, 1.0f / running_sum, out_row, d);
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
  float q[kMaxHeadSize];
  float row[kMaxHeadSize];
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t length = index_at(context_lens, s);
    const int32_t* blocks32 =
        narrow ? block_tables.const_data_ptr<int32_t>() + s * max_blocks : nullptr;
    const int64_t* blocks64 =
        narrow ? nullptr : block_tables.const_data_ptr<int64_t>() + s * max_blocks;
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t offset = (s * heads + h) * head_size;
      load_row<float>(q_base + offset * size, type, 1, head_size, q);
      const float slope =
          alibi_slopes.has_value() ? alibi_slopes->const_data_ptr<float>()[h] : 0.0f;
      attend(cache, q, blocks32, blocks64, length, h / group, static_cast<float>(scale), slope,
             row);
      store_row<float>(row, head_size, type, out_base + offset * size);
    }
  }
  return out;
}

}  // namespace kiln::portable::native
