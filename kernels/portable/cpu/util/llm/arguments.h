// The argument checks of Kiln's LLM operators (custom_ops.yaml, namespace kiln): dtypes, ranks
// and vLLM's shape rules, written once for every kernel that takes these operators' arguments.
// The portable kernels (cpu/op_<name>.cpp) and the ATen-mode kernels (kernels/aten/cpu) call
// them, so both refuse the same inputs with the same messages; an Ascend host wrapper runs them
// on a scratch context to decline what the portable kernel will refuse.
//
// Header-only, over what kiln::Tensor offers in both builds (dtype, dims, sizes, contiguity, and
// the values of index tensors): in ATen mode kiln::Tensor is at::Tensor and no portable source
// is compiled. Each check returns true when the arguments are fine; otherwise it has called
// ctx.fail and the kernel returns.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string_view>

#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"
#if !KILN_ATEN_MODE
#include "runtime/core/dim_order.h"
#endif

namespace kiln::portable {

// "[2, 3]": a tensor's shape rendered for messages, held by value.
struct SizesText {
  char text[128];
};

inline SizesText sizes_text(const Tensor& tensor) {
  SizesText shape;
  const size_t capacity = sizeof(shape.text);
  size_t used = static_cast<size_t>(std::snprintf(shape.text, capacity, "["));
  for (int64_t i = 0; i < tensor.dim() && used < capacity; ++i) {
    used += static_cast<size_t>(std::snprintf(shape.text + used, capacity - used, "%s%lld",
                                              i == 0 ? "" : ", ",
                                              static_cast<long long>(tensor.size(i))));
  }
  if (used < capacity) std::snprintf(shape.text + used, capacity - used, "]");
  return shape;
}

// Element `index` of a contiguous Int or Long tensor.
inline int64_t index_at(const Tensor& tensor, int64_t index) {
  return tensor.scalar_type() == ScalarType::Long ? tensor.const_data_ptr<int64_t>()[index]
                                                  : tensor.const_data_ptr<int32_t>()[index];
}

// `tensor` is contiguous (the kernels read these operators' arguments as dense rows).
inline bool check_contiguous(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name) {
#if KILN_ATEN_MODE
  const bool contiguous = tensor.is_contiguous();
#else
  const bool contiguous = is_default_dim_order(tensor.dim_order());
#endif
  KILN_KERNEL_CHECK_MSG(ctx, contiguous, NotSupported, false,
                        "%s is not contiguous; the kernel takes only the contiguous dim order "
                        "[0, 1, ...]; pass a contiguous tensor",
                        name);
  return true;
}

// `tensor` is a contiguous Float, Half or BFloat16 tensor (the activation dtypes vLLM serves).
inline bool check_activation(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name) {
  if (!check_contiguous(ctx, tensor, name)) return false;
  const ScalarType dtype = tensor.scalar_type();
  KILN_KERNEL_CHECK_MSG(
      ctx, dtype == ScalarType::Float || dtype == ScalarType::Half || dtype == ScalarType::BFloat16,
      InvalidType, false, "%s has dtype %s; pass a Float, Half or BFloat16 tensor", name,
      to_string(dtype));
  return true;
}

// `tensor` has dtype `dtype`, the one of `other_name`.
inline bool check_dtype_matches(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                                ScalarType dtype, const char* other_name) {
  KILN_KERNEL_CHECK_MSG(ctx, tensor.scalar_type() == dtype, InvalidType, false,
                        "%s has dtype %s but %s has %s; pass %s of dtype %s", name,
                        to_string(tensor.scalar_type()), other_name, to_string(dtype), name,
                        to_string(dtype));
  return true;
}

// `tensor` has `rank` dims (and is contiguous).
inline bool check_rank(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                       int64_t rank) {
  if (!check_contiguous(ctx, tensor, name)) return false;
  KILN_KERNEL_CHECK_MSG(ctx, tensor.dim() == rank, InvalidArgument, false,
                        "%s must have %lld dims, but has shape %s", name,
                        static_cast<long long>(rank), sizes_text(tensor).text);
  return true;
}

// `tensor` is a contiguous Int or Long tensor of `rank` dims (index tensors: positions, slots,
// block tables, lengths).
inline bool check_index_tensor(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                               int64_t rank) {
  const ScalarType dtype = tensor.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, dtype == ScalarType::Int || dtype == ScalarType::Long, InvalidType,
                        false, "%s has dtype %s; pass an Int or Long tensor", name,
                        to_string(dtype));
  return check_rank(ctx, tensor, name, rank);
}

// `tensor` is a contiguous tensor of exactly dtype `dtype` and rank `rank` (vLLM's fixed index
// dtypes, as advance_step_flashattn takes them).
inline bool check_index_dtype(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                              ScalarType dtype, int64_t rank) {
  KILN_KERNEL_CHECK_MSG(ctx, tensor.scalar_type() == dtype, InvalidType, false,
                        "%s has dtype %s; pass a %s tensor", name, to_string(tensor.scalar_type()),
                        to_string(dtype));
  return check_rank(ctx, tensor, name, rank);
}

// Size `dim` of `tensor` is `expected`; the message names `what` the size stands for.
inline bool check_size(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                       int64_t dim, int64_t expected, const char* what) {
  KILN_KERNEL_CHECK_MSG(ctx, tensor.size(dim) == expected, InvalidArgument, false,
                        "%s has shape %s: its size %lld must be %s (%lld)", name,
                        sizes_text(tensor).text, static_cast<long long>(dim), what,
                        static_cast<long long>(expected));
  return true;
}

// `tensor` has the shape of `other`.
inline bool check_same_shape(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                             const Tensor& other, const char* other_name) {
  bool same = tensor.dim() == other.dim();
  for (int64_t d = 0; same && d < tensor.dim(); ++d) same = tensor.size(d) == other.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, same, InvalidArgument, false,
                        "%s has shape %s but %s has shape %s; pass tensors of one shape", name,
                        sizes_text(tensor).text, other_name, sizes_text(other).text);
  return true;
}

// kiln::rms_norm: input (an activation of at least one dim) and weight (its last dim's size,
// its dtype); sets *n to that size and *rows to the number of rows.
inline bool check_norm_arguments(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& weight, int64_t* rows, int64_t* n) {
  if (!check_activation(ctx, input, "input") || !check_activation(ctx, weight, "weight") ||
      !check_dtype_matches(ctx, weight, "weight", input.scalar_type(), "input")) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(
      ctx, input.dim() >= 1, InvalidArgument, false,
      "input must have at least one dim (normalised over the last), but is 0-dim");
  *n = input.size(input.dim() - 1);
  KILN_KERNEL_CHECK_MSG(ctx, weight.dim() == 1 && weight.size(0) == *n, InvalidArgument, false,
                        "weight has shape %s but input has shape %s; pass a weight of shape [%lld]",
                        sizes_text(weight).text, sizes_text(input).text,
                        static_cast<long long>(*n));
  *rows = *n == 0 ? 0 : input.numel() / *n;
  return true;
}

// kiln::fused_add_rms_norm: rms_norm's arguments plus a residual of the input's shape and dtype.
inline bool check_add_norm_arguments(KernelRuntimeContext& ctx, const Tensor& input,
                                     const Tensor& residual, const Tensor& weight, int64_t* rows,
                                     int64_t* n) {
  return check_norm_arguments(ctx, input, weight, rows, n) &&
         check_activation(ctx, residual, "residual") &&
         check_dtype_matches(ctx, residual, "residual", input.scalar_type(), "input") &&
         check_same_shape(ctx, residual, "residual", input, "input");
}

// kiln::silu_and_mul, kiln::gelu_and_mul (`op`): input [..., 2 * d], x then y in the last dim;
// sets *d.
inline bool check_gated_input(KernelRuntimeContext& ctx, const Tensor& input, const char* op,
                              int64_t* d) {
  if (!check_activation(ctx, input, "input")) return false;
  const int64_t rank = input.dim();
  KILN_KERNEL_CHECK_MSG(ctx, rank >= 1 && input.size(rank - 1) % 2 == 0, InvalidArgument, false,
                        "%s takes input [..., 2 * d] (x then y in the last dim), but input has "
                        "shape %s; pass a last dim of even size",
                        op, sizes_text(input).text);
  *d = input.size(rank - 1) / 2;
  return true;
}

// kiln::gelu_and_mul's approximate: "none" (exact gelu) or "tanh"; sets *tanh.
inline bool check_gelu_approximate(KernelRuntimeContext& ctx, std::string_view approximate,
                                   bool* tanh) {
  *tanh = approximate == "tanh";
  KILN_KERNEL_CHECK_MSG(ctx, *tanh || approximate == "none", InvalidArgument, false,
                        "approximate must be 'none' or 'tanh', but got '%.*s'",
                        static_cast<int>(approximate.size()), approximate.data());
  return true;
}

// Heads of one rotary_embedding input: `heads` heads of head_size elements per token.
struct HeadLayout {
  int64_t heads;
  int64_t token_stride;  // elements
};

// rotary_embedding's query or key: [*positions.shape, heads * head_size] (any split of the
// trailing dims) of query's dtype.
inline bool check_rotary_heads(KernelRuntimeContext& ctx, const Tensor& t, const char* name,
                               const Tensor& positions, ScalarType dtype, int64_t head_size,
                               HeadLayout* layout) {
  if (!check_activation(ctx, t, name) || !check_dtype_matches(ctx, t, name, dtype, "query")) {
    return false;
  }
  bool leading = t.dim() > positions.dim();
  for (int64_t d = 0; leading && d < positions.dim(); ++d) {
    leading = t.size(d) == positions.size(d);
  }
  KILN_KERNEL_CHECK_MSG(ctx, leading, InvalidArgument, false,
                        "%s has shape %s but positions has shape %s; pass %s of shape "
                        "[*positions.shape, num_heads * head_size]",
                        name, sizes_text(t).text, sizes_text(positions).text, name);
  int64_t per_token = 1;
  for (int64_t d = positions.dim(); d < t.dim(); ++d) per_token *= t.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, per_token % head_size == 0, InvalidArgument, false,
                        "%s has %lld elements per token, not a multiple of head_size %lld", name,
                        static_cast<long long>(per_token), static_cast<long long>(head_size));
  *layout = {per_token / head_size, per_token};
  return true;
}

// kiln::rotary_embedding's shapes: positions (Int or Long, at least one dim), query and key
// (check_rotary_heads), cos_sin_cache [max_position, rot_dim] with rot_dim even and at most
// head_size. Sets the heads' layouts (key's zero without a key).
inline bool check_rotary_shapes(KernelRuntimeContext& ctx, const Tensor& positions,
                                const Tensor& query, const std::optional<Tensor>& key,
                                int64_t head_size, const Tensor& cos_sin_cache,
                                HeadLayout* query_layout, HeadLayout* key_layout) {
  KILN_KERNEL_CHECK_MSG(ctx, head_size > 0, InvalidArgument, false,
                        "head_size must be positive, but is %lld",
                        static_cast<long long>(head_size));
  KILN_KERNEL_CHECK_MSG(ctx, positions.dim() >= 1, InvalidArgument, false,
                        "positions must have at least one dim ([num_tokens]), but is 0-dim");
  const ScalarType dtype = query.scalar_type();
  *key_layout = {0, 0};
  if (!check_index_tensor(ctx, positions, "positions", positions.dim()) ||
      !check_activation(ctx, cos_sin_cache, "cos_sin_cache") ||
      !check_rank(ctx, cos_sin_cache, "cos_sin_cache", 2) ||
      !check_rotary_heads(ctx, query, "query", positions, dtype, head_size, query_layout) ||
      (key.has_value() &&
       !check_rotary_heads(ctx, *key, "key", positions, dtype, head_size, key_layout))) {
    return false;
  }
  const int64_t rot_dim = cos_sin_cache.size(1);
  KILN_KERNEL_CHECK_MSG(ctx, rot_dim % 2 == 0 && rot_dim <= head_size, InvalidArgument, false,
                        "cos_sin_cache has shape %s: its rot_dim %lld must be even and at most "
                        "head_size %lld",
                        sizes_text(cos_sin_cache).text, static_cast<long long>(rot_dim),
                        static_cast<long long>(head_size));
  return true;
}

// kiln::rotary_embedding's positions, once their shapes are checked: every one a row of
// cos_sin_cache.
inline bool check_rotary_positions(KernelRuntimeContext& ctx, const Tensor& positions,
                                   const Tensor& cos_sin_cache) {
  const int64_t max_position = cos_sin_cache.size(0);
  const int64_t tokens = positions.numel();
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t p = index_at(positions, t);
    KILN_KERNEL_CHECK_MSG(ctx, p >= 0 && p < max_position, InvalidArgument, false,
                          "positions[%lld] = %lld is outside the cos_sin_cache's %lld positions",
                          static_cast<long long>(t), static_cast<long long>(p),
                          static_cast<long long>(max_position));
  }
  return true;
}

// kiln::rotary_embedding: check_rotary_shapes, then check_rotary_positions.
inline bool check_rotary_arguments(KernelRuntimeContext& ctx, const Tensor& positions,
                                   const Tensor& query, const std::optional<Tensor>& key,
                                   int64_t head_size, const Tensor& cos_sin_cache,
                                   HeadLayout* query_layout, HeadLayout* key_layout) {
  return check_rotary_shapes(ctx, positions, query, key, head_size, cos_sin_cache, query_layout,
                             key_layout) &&
         check_rotary_positions(ctx, positions, cos_sin_cache);
}

// reshape_and_cache's key or value: [num_tokens, num_kv_heads, head_size] or [num_tokens,
// num_kv_heads * head_size], of the caches' dtype.
inline bool check_cache_entries(KernelRuntimeContext& ctx, const Tensor& t, const char* name,
                                const Tensor& cache, int64_t tokens) {
  if (!check_activation(ctx, t, name) ||
      !check_dtype_matches(ctx, t, name, cache.scalar_type(), "key_cache")) {
    return false;
  }
  const int64_t heads = cache.size(2);
  const int64_t head_size = cache.size(3);
  const bool split = t.dim() == 3 && t.size(1) == heads && t.size(2) == head_size;
  const bool flat = t.dim() == 2 && t.size(1) == heads * head_size;
  KILN_KERNEL_CHECK_MSG(ctx, (split || flat) && t.size(0) == tokens, InvalidArgument, false,
                        "%s has shape %s; with slot_mapping of %lld tokens and caches of shape %s "
                        "pass [%lld, %lld, %lld] (num_tokens, num_kv_heads, head_size)",
                        name, sizes_text(t).text, static_cast<long long>(tokens),
                        sizes_text(cache).text, static_cast<long long>(tokens),
                        static_cast<long long>(heads), static_cast<long long>(head_size));
  return true;
}

// key_cache and value_cache: activations of one dtype and one shape [num_blocks, block_size,
// num_kv_heads, head_size].
inline bool check_caches(KernelRuntimeContext& ctx, const Tensor& key_cache,
                         const Tensor& value_cache) {
  if (!check_activation(ctx, key_cache, "key_cache") ||
      !check_rank(ctx, key_cache, "key_cache", 4) ||
      !check_activation(ctx, value_cache, "value_cache") ||
      !check_dtype_matches(ctx, value_cache, "value_cache", key_cache.scalar_type(), "key_cache")) {
    return false;
  }
  bool same = value_cache.dim() == 4;
  for (int64_t d = 0; same && d < 4; ++d) same = value_cache.size(d) == key_cache.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, same, InvalidArgument, false,
                        "value_cache has shape %s but key_cache has shape %s; pass caches of one "
                        "shape [num_blocks, block_size, num_kv_heads, head_size]",
                        sizes_text(value_cache).text, sizes_text(key_cache).text);
  return true;
}

// kiln::reshape_and_cache: the caches (check_caches), key and value (check_cache_entries) and
// slot_mapping [num_tokens], every slot before the caches' end (a negative one is padding).
inline bool check_reshape_and_cache_arguments(KernelRuntimeContext& ctx, const Tensor& key,
                                              const Tensor& value, const Tensor& key_cache,
                                              const Tensor& value_cache,
                                              const Tensor& slot_mapping) {
  if (!check_caches(ctx, key_cache, value_cache) ||
      !check_index_tensor(ctx, slot_mapping, "slot_mapping", 1)) {
    return false;
  }
  const int64_t tokens = slot_mapping.size(0);
  if (!check_cache_entries(ctx, key, "key", key_cache, tokens) ||
      !check_cache_entries(ctx, value, "value", key_cache, tokens)) {
    return false;
  }
  const int64_t slots = key_cache.size(0) * key_cache.size(1);
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t slot = index_at(slot_mapping, t);
    KILN_KERNEL_CHECK_MSG(ctx, slot < slots, InvalidArgument, false,
                          "slot_mapping[%lld] = %lld is past the caches' %lld slots "
                          "(num_blocks * block_size)",
                          static_cast<long long>(t), static_cast<long long>(slot),
                          static_cast<long long>(slots));
  }
  return true;
}

// kiln::paged_attention: query [num_seqs, num_heads, head_size], the caches (check_caches) of
// its dtype and head_size with num_heads a multiple of their kv heads, block_tables [num_seqs,
// max_blocks] and context_lens [num_seqs] whose lengths and the blocks they use fit, and
// alibi_slopes [num_heads] of Float.
inline bool check_paged_attention_arguments(KernelRuntimeContext& ctx, const Tensor& query,
                                            const Tensor& key_cache, const Tensor& value_cache,
                                            const Tensor& block_tables, const Tensor& context_lens,
                                            const std::optional<Tensor>& alibi_slopes) {
  if (!check_activation(ctx, query, "query") || !check_rank(ctx, query, "query", 3) ||
      !check_activation(ctx, key_cache, "key_cache") ||
      !check_dtype_matches(ctx, key_cache, "key_cache", query.scalar_type(), "query") ||
      !check_caches(ctx, key_cache, value_cache) ||
      !check_index_tensor(ctx, block_tables, "block_tables", 2) ||
      !check_index_tensor(ctx, context_lens, "context_lens", 1)) {
    return false;
  }
  const int64_t seqs = query.size(0);
  const int64_t heads = query.size(1);
  const int64_t head_size = query.size(2);
  const int64_t num_blocks = key_cache.size(0);
  const int64_t block_size = key_cache.size(1);
  const int64_t kv_heads = key_cache.size(2);
  KILN_KERNEL_CHECK_MSG(ctx, key_cache.size(3) == head_size, InvalidArgument, false,
                        "query has head_size %lld but key_cache has shape %s ([num_blocks, "
                        "block_size, num_kv_heads, head_size]); pass matching head sizes",
                        static_cast<long long>(head_size), sizes_text(key_cache).text);
  KILN_KERNEL_CHECK_MSG(ctx, block_size > 0, InvalidArgument, false,
                        "key_cache has shape %s: its block_size (dim 1) must be positive",
                        sizes_text(key_cache).text);
  KILN_KERNEL_CHECK_MSG(ctx, kv_heads > 0 && heads % kv_heads == 0, InvalidArgument, false,
                        "query has %lld heads, not a multiple of the caches' %lld kv heads",
                        static_cast<long long>(heads), static_cast<long long>(kv_heads));
  if (!check_size(ctx, block_tables, "block_tables", 0, seqs, "num_seqs") ||
      !check_size(ctx, context_lens, "context_lens", 0, seqs, "num_seqs")) {
    return false;
  }
  if (alibi_slopes.has_value() &&
      (!check_rank(ctx, *alibi_slopes, "alibi_slopes", 1) ||
       !check_dtype_matches(ctx, *alibi_slopes, "alibi_slopes", ScalarType::Float, "a slope") ||
       !check_size(ctx, *alibi_slopes, "alibi_slopes", 0, heads, "num_heads"))) {
    return false;
  }
  const int64_t max_blocks = block_tables.size(1);
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t length = index_at(context_lens, s);
    KILN_KERNEL_CHECK_MSG(ctx, length >= 0 && length <= max_blocks * block_size, InvalidArgument,
                          false,
                          "context_lens[%lld] = %lld is outside [0, %lld], what %lld blocks of "
                          "%lld tokens in block_tables hold",
                          static_cast<long long>(s), static_cast<long long>(length),
                          static_cast<long long>(max_blocks * block_size),
                          static_cast<long long>(max_blocks), static_cast<long long>(block_size));
    const int64_t used = (length + block_size - 1) / block_size;
    for (int64_t b = 0; b < used; ++b) {
      const int64_t block = index_at(block_tables, s * max_blocks + b);
      KILN_KERNEL_CHECK_MSG(ctx, block >= 0 && block < num_blocks, InvalidArgument, false,
                            "block_tables[%lld][%lld] = %lld is not a block of the caches' %lld",
                            static_cast<long long>(s), static_cast<long long>(b),
                            static_cast<long long>(block), static_cast<long long>(num_blocks));
    }
  }
  return true;
}

// kiln::advance_step_flashattn: vLLM's dtypes (Long tokens, positions and slots; Int lengths
// and block tables), num_seqs rows each, sampled_token_ids [num_queries(, 1)] of Long, and for
// every query the block its next position needs.
inline bool check_advance_step_arguments(KernelRuntimeContext& ctx, int64_t num_seqs,
                                         int64_t num_queries, int64_t block_size,
                                         const Tensor& input_tokens,
                                         const Tensor& sampled_token_ids,
                                         const Tensor& input_positions, const Tensor& seq_lens,
                                         const Tensor& slot_mapping, const Tensor& block_tables) {
  KILN_KERNEL_CHECK_MSG(ctx, num_queries >= 0 && num_queries <= num_seqs, InvalidArgument, false,
                        "num_queries %lld must be in [0, num_seqs = %lld]",
                        static_cast<long long>(num_queries), static_cast<long long>(num_seqs));
  KILN_KERNEL_CHECK_MSG(ctx, block_size > 0, InvalidArgument, false,
                        "block_size must be positive, but is %lld",
                        static_cast<long long>(block_size));
  if (!check_index_dtype(ctx, input_tokens, "input_tokens", ScalarType::Long, 1) ||
      !check_index_dtype(ctx, input_positions, "input_positions", ScalarType::Long, 1) ||
      !check_index_dtype(ctx, seq_lens, "seq_lens", ScalarType::Int, 1) ||
      !check_index_dtype(ctx, slot_mapping, "slot_mapping", ScalarType::Long, 1) ||
      !check_index_dtype(ctx, block_tables, "block_tables", ScalarType::Int, 2) ||
      !check_size(ctx, input_tokens, "input_tokens", 0, num_seqs, "num_seqs") ||
      !check_size(ctx, input_positions, "input_positions", 0, num_seqs, "num_seqs") ||
      !check_size(ctx, seq_lens, "seq_lens", 0, num_seqs, "num_seqs") ||
      !check_size(ctx, slot_mapping, "slot_mapping", 0, num_seqs, "num_seqs") ||
      !check_size(ctx, block_tables, "block_tables", 0, num_seqs, "num_seqs") ||
      !check_contiguous(ctx, sampled_token_ids, "sampled_token_ids")) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(
      ctx,
      sampled_token_ids.scalar_type() == ScalarType::Long &&
          (sampled_token_ids.dim() == 1 ||
           (sampled_token_ids.dim() == 2 && sampled_token_ids.size(1) == 1)) &&
          sampled_token_ids.size(0) == num_queries,
      InvalidArgument, false,
      "sampled_token_ids has dtype %s and shape %s; pass a Long tensor of shape [%lld, 1] "
      "(num_queries)",
      to_string(sampled_token_ids.scalar_type()), sizes_text(sampled_token_ids).text,
      static_cast<long long>(num_queries));
  const int64_t max_blocks = block_tables.size(1);
  const int32_t* tables = block_tables.const_data_ptr<int32_t>();
  const int32_t* lengths = seq_lens.const_data_ptr<int32_t>();
  for (int64_t i = 0; i < num_queries; ++i) {
    const int64_t position = lengths[i];  // the new token's position is the old length
    KILN_KERNEL_CHECK_MSG(
        ctx, position >= 0 && position / block_size < max_blocks, InvalidArgument, false,
        "seq_lens[%lld] = %lld: the next position needs block %lld, past "
        "block_tables' %lld blocks per sequence",
        static_cast<long long>(i), static_cast<long long>(position),
        static_cast<long long>(position / block_size), static_cast<long long>(max_blocks));
    const int64_t block = tables[i * max_blocks + position / block_size];
    KILN_KERNEL_CHECK_MSG(ctx, block >= 0, InvalidArgument, false,
                          "block_tables[%lld][%lld] = %lld is not a block",
                          static_cast<long long>(i), static_cast<long long>(position / block_size),
                          static_cast<long long>(block));
  }
  return true;
}

// kiln::weight_int8_linear: input [..., in_features] (an activation), weight [out_features,
// in_features] of Char, scales [out_features] of Float or the input's dtype, bias
// [out_features] of the input's dtype.
inline bool check_int8_linear_arguments(KernelRuntimeContext& ctx, const Tensor& input,
                                        const Tensor& weight, const Tensor& scales,
                                        const std::optional<Tensor>& bias) {
  if (!check_activation(ctx, input, "input")) return false;
  KILN_KERNEL_CHECK_MSG(ctx, input.dim() >= 1, InvalidArgument, false,
                        "input must have at least one dim ([..., in_features]), but is 0-dim");
  if (!check_index_dtype(ctx, weight, "weight", ScalarType::Char, 2)) return false;
  const int64_t n = weight.size(0);
  const int64_t k = weight.size(1);
  KILN_KERNEL_CHECK_MSG(ctx, input.size(input.dim() - 1) == k, InvalidArgument, false,
                        "input has shape %s but weight has shape %s ([out_features, "
                        "in_features]); pass input of shape [..., %lld]",
                        sizes_text(input).text, sizes_text(weight).text, static_cast<long long>(k));
  const ScalarType type = input.scalar_type();
  if (!check_activation(ctx, scales, "scales") || !check_rank(ctx, scales, "scales", 1) ||
      !check_size(ctx, scales, "scales", 0, n, "out_features")) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(
      ctx, scales.scalar_type() == ScalarType::Float || scales.scalar_type() == type, InvalidType,
      false, "scales has dtype %s; pass Float scales or scales of the input's dtype %s",
      to_string(scales.scalar_type()), to_string(type));
  return !bias.has_value() || (check_activation(ctx, *bias, "bias") &&
                               check_dtype_matches(ctx, *bias, "bias", type, "input") &&
                               check_rank(ctx, *bias, "bias", 1) &&
                               check_size(ctx, *bias, "bias", 0, n, "out_features"));
}

}  // namespace kiln::portable
