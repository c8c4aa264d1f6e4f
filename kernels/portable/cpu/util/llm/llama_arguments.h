// The argument checks of ExecuTorch's LLM custom operators (custom_ops.yaml, namespace llama:
// custom_sdpa, sdpa_with_kv_cache, update_cache, update_cache_with_indices), shared by the
// portable, ATen-mode and Ascend host kernels so that all refuse the same inputs with the same
// messages, and all before anything is written. Header-only, like arguments.h.
//
// The layout is ExecuTorch's: sequence at dim 1, [batch, seq, heads, head_dim]; a cache is
// [batch, max_seq, kv_heads, head_dim] and a call writes or reads its positions from start_pos.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/llm/arguments.h"

namespace kiln::portable {

// `value` fits in `cache` from position start_pos: both contiguous 4-D tensors of one dtype (any:
// the quantized KV cache writes int8 codes and float scales) with equal batch, heads and head
// dims, and with `positions` rows of value (its size 1) from start_pos inside the cache.
inline bool check_cache_update(KernelRuntimeContext& ctx, const Tensor& value,
                               const char* value_name, const Tensor& cache, const char* cache_name,
                               int64_t start_pos) {
  if (!check_rank(ctx, value, value_name, 4) || !check_rank(ctx, cache, cache_name, 4) ||
      !check_dtype_matches(ctx, value, value_name, cache.scalar_type(), cache_name)) {
    return false;
  }
  for (const int64_t d : {0, 2, 3}) {
    KILN_KERNEL_CHECK_MSG(ctx, value.size(d) == cache.size(d), InvalidArgument, false,
                          "%s has shape %s but %s has shape %s; they must agree in batch, heads "
                          "and head_dim (dims 0, 2 and 3)",
                          value_name, sizes_text(value).text, cache_name, sizes_text(cache).text);
  }
  const int64_t positions = value.size(1);
  const int64_t capacity = cache.size(1);
  KILN_KERNEL_CHECK_MSG(
      ctx, start_pos >= 0 && start_pos <= capacity - positions, InvalidArgument, false,
      "start_pos %lld with %lld new positions does not fit %s's %lld positions; "
      "start_pos must be in [0, %lld]",
      static_cast<long long>(start_pos), static_cast<long long>(positions), cache_name,
      static_cast<long long>(capacity), static_cast<long long>(capacity - positions));
  return true;
}

// llama::update_cache_with_indices: the update_cache shapes, and indices [batch, seq] of Long
// positions, each inside the cache.
inline bool check_cache_update_indices(KernelRuntimeContext& ctx, const Tensor& value,
                                       const Tensor& cache, const Tensor& indices) {
  if (!check_rank(ctx, value, "value", 4) || !check_rank(ctx, cache, "cache", 4) ||
      !check_dtype_matches(ctx, value, "value", cache.scalar_type(), "cache") ||
      !check_index_dtype(ctx, indices, "indices", ScalarType::Long, 2) ||
      !check_size(ctx, indices, "indices", 0, value.size(0), "value's batch size") ||
      !check_size(ctx, indices, "indices", 1, value.size(1), "value's sequence length")) {
    return false;
  }
  for (const int64_t d : {0, 2, 3}) {
    KILN_KERNEL_CHECK_MSG(ctx, value.size(d) == cache.size(d), InvalidArgument, false,
                          "value has shape %s but cache has shape %s; they must agree in batch, "
                          "heads and head_dim (dims 0, 2 and 3)",
                          sizes_text(value).text, sizes_text(cache).text);
  }
  const int64_t* positions = indices.const_data_ptr<int64_t>();
  for (int64_t i = 0; i < indices.numel(); ++i) {
    KILN_KERNEL_CHECK_MSG(
        ctx, positions[i] >= 0 && positions[i] < cache.size(1), InvalidArgument, false,
        "indices[%lld][%lld] is %lld, outside cache's %lld positions; pass "
        "positions in [0, %lld)",
        static_cast<long long>(i / indices.size(1)), static_cast<long long>(i % indices.size(1)),
        static_cast<long long>(positions[i]), static_cast<long long>(cache.size(1)),
        static_cast<long long>(cache.size(1)));
  }
  return true;
}

// llama::custom_sdpa: query [B, S, H, D], key and value [B, L, H_kv, D] of query's activation
// dtype with H a multiple of H_kv; no dropout; attn_mask (a float [S, L] tensor) or is_causal,
// not both; without a mask, start_pos + S <= L (the keys attended end there).
inline bool check_custom_sdpa_arguments(KernelRuntimeContext& ctx, const Tensor& query,
                                        const Tensor& key, const Tensor& value, int64_t start_pos,
                                        const std::optional<Tensor>& attn_mask, double dropout_p,
                                        bool is_causal) {
  if (!check_activation(ctx, query, "query") || !check_rank(ctx, query, "query", 4) ||
      !check_rank(ctx, key, "key", 4) || !check_rank(ctx, value, "value", 4) ||
      !check_dtype_matches(ctx, key, "key", query.scalar_type(), "query") ||
      !check_dtype_matches(ctx, value, "value", query.scalar_type(), "query") ||
      !check_same_shape(ctx, value, "value", key, "key") ||
      !check_size(ctx, key, "key", 0, query.size(0), "query's batch size") ||
      !check_size(ctx, key, "key", 3, query.size(3), "query's head_dim")) {
    return false;
  }
  const int64_t heads = query.size(2);
  const int64_t kv_heads = key.size(2);
  KILN_KERNEL_CHECK_MSG(ctx, kv_heads > 0 && heads % kv_heads == 0, InvalidArgument, false,
                        "query has %lld heads and key %lld; the query heads must be a multiple "
                        "of the key/value heads",
                        static_cast<long long>(heads), static_cast<long long>(kv_heads));
  KILN_KERNEL_CHECK_MSG(ctx, dropout_p == 0.0, InvalidArgument, false,
                        "drpout_p is %g; inference attention takes no dropout: pass 0", dropout_p);
  KILN_KERNEL_CHECK_MSG(ctx, start_pos >= 0, InvalidArgument, false,
                        "start_pos is %lld; pass a position >= 0",
                        static_cast<long long>(start_pos));
  const int64_t queries = query.size(1);
  const int64_t positions = key.size(1);
  if (attn_mask.has_value()) {
    KILN_KERNEL_CHECK_MSG(ctx, !is_causal, InvalidArgument, false,
                          "attn_mask and is_causal are both set; pass one of them");
    const ScalarType mask_type = attn_mask->scalar_type();
    KILN_KERNEL_CHECK_MSG(
        ctx,
        mask_type == ScalarType::Float || mask_type == ScalarType::Half ||
            mask_type == ScalarType::BFloat16,
        InvalidType, false,
        "attn_mask has dtype %s; pass an additive Float, Half or BFloat16 mask (0 to attend, "
        "-inf to mask out)",
        to_string(mask_type));
    return check_rank(ctx, *attn_mask, "attn_mask", 2) &&
           check_size(ctx, *attn_mask, "attn_mask", 0, queries, "query's sequence length") &&
           check_size(ctx, *attn_mask, "attn_mask", 1, positions, "key's sequence length");
  }
  KILN_KERNEL_CHECK_MSG(ctx, start_pos <= positions - queries, InvalidArgument, false,
                        "start_pos %lld with %lld queries reads past key's %lld positions; "
                        "start_pos must be in [0, %lld]",
                        static_cast<long long>(start_pos), static_cast<long long>(queries),
                        static_cast<long long>(positions),
                        static_cast<long long>(positions - queries));
  return true;
}

// llama::sdpa_with_kv_cache: key and value (seq_len new positions each) fit the caches from
// start_pos, and the attention over the caches is a valid custom_sdpa for query's seq_len rows.
inline bool check_sdpa_with_kv_cache_arguments(KernelRuntimeContext& ctx, const Tensor& query,
                                               const Tensor& key, const Tensor& value,
                                               const Tensor& key_cache, const Tensor& value_cache,
                                               int64_t start_pos, int64_t seq_len,
                                               const std::optional<Tensor>& attn_mask,
                                               double dropout_p, bool is_causal) {
  if (!check_rank(ctx, query, "query", 4) ||
      !check_size(ctx, query, "query", 1, seq_len, "seq_len") ||
      !check_same_shape(ctx, value, "value", key, "key") ||
      !check_size(ctx, key, "key", 1, seq_len, "seq_len") ||
      !check_same_shape(ctx, value_cache, "value_cache", key_cache, "key_cache") ||
      !check_cache_update(ctx, key, "key", key_cache, "key_cache", start_pos) ||
      !check_cache_update(ctx, value, "value", value_cache, "value_cache", start_pos)) {
    return false;
  }
  return check_custom_sdpa_arguments(ctx, query, key_cache, value_cache, start_pos, attn_mask,
                                     dropout_p, is_causal);
}

// The scale logits take: `scale`, or 1 / sqrt(head_dim) when none is given.
inline float attention_scale(const std::optional<double>& scale, int64_t head_dim) {
  return static_cast<float>(scale.has_value() ? *scale
                                              : 1.0 / std::sqrt(static_cast<double>(head_dim)));
}

}  // namespace kiln::portable
