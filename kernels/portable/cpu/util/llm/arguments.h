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

// `tensor` has a Float, Half or BFloat16 dtype.
inline bool check_activation_dtype(KernelRuntimeContext& ctx, const Tensor& tensor,
                                   const char* name) {
  const ScalarType dtype = tensor.scalar_type();
  KILN_KERNEL_CHECK_MSG(
      ctx, dtype == ScalarType::Float || dtype == ScalarType::Half || dtype == ScalarType::BFloat16,
      InvalidType, false, "%s has dtype %s; pass a Float, Half or BFloat16 tensor", name,
      to_string(dtype));
  return true;
}

// Row views. Serving engines pass views such as `q, k, v = qkv.split(...)`: dim 0 (tokens, or
// sequences) steps by a stride of its own while each dim-0 row is dense. A kernel that takes an
// argument as a row view checks it with check_row_activation and addresses it through RowView;
// python/kiln/_row_views.py lists those arguments, and every other tensor reaches a kernel dense
// (the Python bindings copy a strided one). In lean mode a Kiln tensor is a row view when its
// dim order is the default and strides()[0] is any value, the other strides dense.
struct RowView {
  int64_t stride;     // elements from one dim-0 row to the next
  int64_t row_numel;  // elements in one dim-0 row (the product of sizes 1..)

  // The element offset of the `index`-th run of `run` consecutive elements, counted over the
  // rows as if the tensor were dense; `run` divides row_numel.
  int64_t offset(int64_t index, int64_t run) const {
    const int64_t runs = run > 0 ? row_numel / run : 0;
    if (runs <= 1) return index * stride;  // a run per row (or empty runs, never read)
    return (index / runs) * stride + (index % runs) * run;
  }
};

// A tensor of fewer than 2 dims is dense (is_row_view) and one row of all its elements.
inline RowView row_view(const Tensor& tensor) {
  if (tensor.dim() < 2) return {tensor.numel(), tensor.numel()};
  int64_t row_numel = 1;
  for (int64_t d = 1; d < tensor.dim(); ++d) row_numel *= tensor.size(d);
  return {static_cast<int64_t>(tensor.strides()[0]), row_numel};
}

// Whether each dim-0 row of `tensor` is dense in the default dim order (dims of size 1 may have
// any stride, as in torch), with a non-negative dim-0 stride; a 1-dim tensor must be dense.
inline bool is_row_view(const Tensor& tensor) {
#if !KILN_ATEN_MODE
  if (!is_default_dim_order(tensor.dim_order())) return false;
#endif
  int64_t expected = 1;
  for (int64_t d = tensor.dim() - 1; d >= 1; --d) {
    if (tensor.size(d) != 1 && tensor.strides()[d] != expected) return false;
    expected *= tensor.size(d);
  }
  // A 1-dim tensor's rows are single elements, which no kernel's run of elements fits into:
  // only a dense one is taken.
  if (tensor.dim() == 1) return tensor.size(0) <= 1 || tensor.strides()[0] == 1;
  return tensor.dim() == 0 || tensor.strides()[0] >= 0;
}

// `tensor` is a row view (is_row_view) of a Float, Half or BFloat16 tensor; an out row view's
// rows must not overlap (a dim-0 stride of at least a row), as one written twice would.
inline bool check_row_activation(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                                 bool is_out = false) {
  KILN_KERNEL_CHECK_MSG(ctx, is_row_view(tensor), NotSupported, false,
                        "%s is neither contiguous nor a view of dense rows (dims after the first "
                        "dense); pass a contiguous tensor",
                        name);
  const RowView rows = row_view(tensor);
  KILN_KERNEL_CHECK_MSG(
      ctx, !is_out || tensor.dim() == 0 || tensor.size(0) <= 1 || rows.stride >= rows.row_numel,
      InvalidArgument, false,
      "%s has rows %lld elements apart but %lld elements long, so rows overlap; "
      "pass an out whose rows are disjoint",
      name, static_cast<long long>(rows.stride), static_cast<long long>(rows.row_numel));
  return check_activation_dtype(ctx, tensor, name);
}

// `tensor` is a contiguous Float, Half or BFloat16 tensor (the activation dtypes vLLM serves).
inline bool check_activation(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name) {
  return check_contiguous(ctx, tensor, name) && check_activation_dtype(ctx, tensor, name);
}

// check_row_activation when the kernel takes `tensor` as a row view (`row_views`), else
// check_activation.
inline bool check_activation_in(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                                bool row_views, bool is_out = false) {
  return row_views ? check_row_activation(ctx, tensor, name, is_out)
                   : check_activation(ctx, tensor, name);
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
                        "%s has dtype %s; pass %s tensor", name, to_string(tensor.scalar_type()),
                        to_phrase(dtype));
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

// kiln::rms_norm: input (an activation of at least one dim, a row view if `row_views`) and
// weight (its last dim's size, its dtype); sets *n to that size and *rows to the number of rows.
inline bool check_norm_arguments(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& weight, int64_t* rows, int64_t* n,
                                 bool row_views = false) {
  if (!check_activation_in(ctx, input, "input", row_views) ||
      !check_activation(ctx, weight, "weight") ||
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
                                     int64_t* n, bool row_views = false) {
  return check_norm_arguments(ctx, input, weight, rows, n, row_views) &&
         check_activation_in(ctx, residual, "residual", row_views) &&
         check_dtype_matches(ctx, residual, "residual", input.scalar_type(), "input") &&
         check_same_shape(ctx, residual, "residual", input, "input");
}

// kiln::silu_and_mul, kiln::gelu_and_mul (`op`): input [..., 2 * d], x then y in the last dim
// (a row view if `row_views`); sets *d.
inline bool check_gated_input(KernelRuntimeContext& ctx, const Tensor& input, const char* op,
                              int64_t* d, bool row_views = false) {
  if (!check_activation_in(ctx, input, "input", row_views)) return false;
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

// Heads of one rotary_embedding input: `heads` heads of head_size elements per token, token t
// at element rows.offset(t, heads * head_size).
struct HeadLayout {
  int64_t heads;
  RowView rows;
};

// rotary_embedding's query or key: [*positions.shape, heads * head_size] (any split of the
// trailing dims) of query's dtype.
inline bool check_rotary_heads(KernelRuntimeContext& ctx, const Tensor& t, const char* name,
                               const Tensor& positions, ScalarType dtype, int64_t head_size,
                               HeadLayout* layout, bool row_views) {
  if (!check_activation_in(ctx, t, name, row_views) ||
      !check_dtype_matches(ctx, t, name, dtype, "query")) {
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
  *layout = {per_token / head_size, row_view(t)};
  return true;
}

// kiln::rotary_embedding's shapes: positions (Int or Long, at least one dim), query and key
// (check_rotary_heads), cos_sin_cache [max_position, rot_dim] with rot_dim even and at most
// head_size. Sets the heads' layouts (key's zero without a key).
inline bool check_rotary_shapes(KernelRuntimeContext& ctx, const Tensor& positions,
                                const Tensor& query, const std::optional<Tensor>& key,
                                int64_t head_size, const Tensor& cos_sin_cache,
                                HeadLayout* query_layout, HeadLayout* key_layout,
                                bool row_views = false) {
  KILN_KERNEL_CHECK_MSG(ctx, head_size > 0, InvalidArgument, false,
                        "head_size must be positive, but is %lld",
                        static_cast<long long>(head_size));
  KILN_KERNEL_CHECK_MSG(ctx, positions.dim() >= 1, InvalidArgument, false,
                        "positions must have at least one dim ([num_tokens]), but is 0-dim");
  const ScalarType dtype = query.scalar_type();
  *key_layout = {0, {0, 0}};
  if (!check_index_tensor(ctx, positions, "positions", positions.dim()) ||
      !check_activation(ctx, cos_sin_cache, "cos_sin_cache") ||
      !check_rank(ctx, cos_sin_cache, "cos_sin_cache", 2) ||
      !check_rotary_heads(ctx, query, "query", positions, dtype, head_size, query_layout,
                          row_views) ||
      (key.has_value() &&
       !check_rotary_heads(ctx, *key, "key", positions, dtype, head_size, key_layout, row_views))) {
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
                                   HeadLayout* query_layout, HeadLayout* key_layout,
                                   bool row_views = false) {
  return check_rotary_shapes(ctx, positions, query, key, head_size, cos_sin_cache, query_layout,
                             key_layout, row_views) &&
         check_rotary_positions(ctx, positions, cos_sin_cache);
}

// The KV cache layouts of reshape_and_cache and paged_attention (docs/custom_ops.md). Flash
// (vLLM's reshape_and_cache_flash): key_cache and value_cache [num_blocks, block_size,
// num_kv_heads, head_size]. Paged (vLLM's reshape_and_cache and paged_attention, the
// .paged_layout overloads): key_cache [num_blocks, num_kv_heads, head_size / x, block_size, x]
// with x the elements in 16 bytes, value_cache [num_blocks, num_kv_heads, head_size,
// block_size]. Slot s is block s / block_size, offset s % block_size.
enum class CacheLayout { kFlash, kPaged };

// A pair of caches of either layout: sizes, and where a (block, offset, kv head) row's element d
// lives in each.
struct CacheGeometry {
  CacheLayout layout;
  int64_t num_blocks;
  int64_t block_size;
  int64_t kv_heads;
  int64_t head_size;
  int64_t x;  // paged: elements per 16 bytes (a key chunk); flash: head_size

  int64_t slots() const { return num_blocks * block_size; }

  int64_t key_element(int64_t block, int64_t offset, int64_t head, int64_t d) const {
    if (layout == CacheLayout::kFlash) return row_element(block, offset, head) + d;
    const int64_t chunks = head_size / x;
    return (((block * kv_heads + head) * chunks + d / x) * block_size + offset) * x + d % x;
  }

  int64_t value_element(int64_t block, int64_t offset, int64_t head, int64_t d) const {
    if (layout == CacheLayout::kFlash) return row_element(block, offset, head) + d;
    return ((block * kv_heads + head) * head_size + d) * block_size + offset;
  }

 private:
  int64_t row_element(int64_t block, int64_t offset, int64_t head) const {
    return ((block * block_size + offset) * kv_heads + head) * head_size;
  }
};

// Elements of `cache`'s dtype in 16 bytes: vLLM's x, the width of a paged key cache's chunks.
inline int64_t paged_cache_x(const Tensor& cache) {
  return 16 / static_cast<int64_t>(cache.element_size());
}

// An operator's overloads by cache layout, named in messages that point from one to the other.
struct CacheOverloads {
  const char* flash;
  const char* paged;
};
inline constexpr CacheOverloads kReshapeAndCacheOverloads{"kiln::reshape_and_cache",
                                                          "kiln::reshape_and_cache.paged_layout"};
inline constexpr CacheOverloads kPagedAttentionOverloads{"kiln::paged_attention.out",
                                                         "kiln::paged_attention.paged_layout_out"};

// Flash caches: one shape [num_blocks, block_size, num_kv_heads, head_size]; a 5-dim key_cache
// is the paged layout, which another overload takes.
inline bool check_flash_caches(KernelRuntimeContext& ctx, const Tensor& key_cache,
                               const Tensor& value_cache, const CacheOverloads& op,
                               CacheGeometry* g) {
  KILN_KERNEL_CHECK_MSG(ctx, key_cache.dim() != 5, InvalidArgument, false,
                        "key_cache has shape %s: 5 dims are vLLM's paged layout; call %s, or pass "
                        "flash caches [num_blocks, block_size, num_kv_heads, head_size]",
                        sizes_text(key_cache).text, op.paged);
  if (!check_rank(ctx, key_cache, "key_cache", 4)) return false;
  bool same = value_cache.dim() == 4;
  for (int64_t d = 0; same && d < 4; ++d) same = value_cache.size(d) == key_cache.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, same, InvalidArgument, false,
                        "value_cache has shape %s but key_cache has shape %s; pass caches of one "
                        "shape [num_blocks, block_size, num_kv_heads, head_size]",
                        sizes_text(value_cache).text, sizes_text(key_cache).text);
  *g = {CacheLayout::kFlash, key_cache.size(0), key_cache.size(1),
        key_cache.size(2),   key_cache.size(3), key_cache.size(3)};
  return true;
}

// Paged caches: key_cache [num_blocks, num_kv_heads, head_size / x, block_size, x] with x the
// elements in 16 bytes, value_cache [num_blocks, num_kv_heads, head_size, block_size].
inline bool check_paged_caches(KernelRuntimeContext& ctx, const Tensor& key_cache,
                               const Tensor& value_cache, const CacheOverloads& op,
                               CacheGeometry* g) {
  KILN_KERNEL_CHECK_MSG(ctx, key_cache.dim() != 4, InvalidArgument, false,
                        "key_cache has shape %s: 4 dims are the flash layout; call %s, or pass "
                        "paged caches [num_blocks, num_kv_heads, head_size / x, block_size, x]",
                        sizes_text(key_cache).text, op.flash);
  if (!check_rank(ctx, key_cache, "key_cache", 5)) return false;
  const int64_t x = paged_cache_x(key_cache);
  KILN_KERNEL_CHECK_MSG(ctx, key_cache.size(4) == x, InvalidArgument, false,
                        "key_cache has shape %s and dtype %s: its last dim x must hold 16 bytes, "
                        "%lld elements ([num_blocks, num_kv_heads, head_size / x, block_size, x])",
                        sizes_text(key_cache).text, to_string(key_cache.scalar_type()),
                        static_cast<long long>(x));
  const int64_t head_size = key_cache.size(2) * x;
  const bool same = value_cache.dim() == 4 && value_cache.size(0) == key_cache.size(0) &&
                    value_cache.size(1) == key_cache.size(1) && value_cache.size(2) == head_size &&
                    value_cache.size(3) == key_cache.size(3);
  KILN_KERNEL_CHECK_MSG(
      ctx, same, InvalidArgument, false,
      "value_cache has shape %s but key_cache has shape %s; pass value_cache [num_blocks, "
      "num_kv_heads, head_size, block_size] = [%lld, %lld, %lld, %lld]",
      sizes_text(value_cache).text, sizes_text(key_cache).text,
      static_cast<long long>(key_cache.size(0)), static_cast<long long>(key_cache.size(1)),
      static_cast<long long>(head_size), static_cast<long long>(key_cache.size(3)));
  *g = {CacheLayout::kPaged, key_cache.size(0), key_cache.size(3), key_cache.size(1), head_size, x};
  return true;
}

// key_cache and value_cache of `layout`: contiguous activations of one dtype, their shapes as
// the layout says; fills *g. `op` names the operator in messages.
inline bool check_caches(KernelRuntimeContext& ctx, const Tensor& key_cache,
                         const Tensor& value_cache, CacheLayout layout, const CacheOverloads& op,
                         CacheGeometry* g) {
  if (!check_activation(ctx, key_cache, "key_cache") ||
      !check_activation(ctx, value_cache, "value_cache") ||
      !check_dtype_matches(ctx, value_cache, "value_cache", key_cache.scalar_type(), "key_cache")) {
    return false;
  }
  return layout == CacheLayout::kFlash ? check_flash_caches(ctx, key_cache, value_cache, op, g)
                                       : check_paged_caches(ctx, key_cache, value_cache, op, g);
}

// reshape_and_cache's key or value, a row view of the caches' dtype: [rows, num_kv_heads,
// head_size] or [rows, num_kv_heads * head_size] with at least `tokens` rows (vLLM's padded
// batches: rows past slot_mapping's are ignored).
inline bool check_cache_entries(KernelRuntimeContext& ctx, const Tensor& t, const char* name,
                                const Tensor& key_cache, const CacheGeometry& g, int64_t tokens) {
  if (!check_row_activation(ctx, t, name) ||
      !check_dtype_matches(ctx, t, name, key_cache.scalar_type(), "key_cache")) {
    return false;
  }
  const bool split = t.dim() == 3 && t.size(1) == g.kv_heads && t.size(2) == g.head_size;
  const bool flat = t.dim() == 2 && t.size(1) == g.kv_heads * g.head_size;
  KILN_KERNEL_CHECK_MSG(
      ctx, (split || flat) && t.size(0) >= tokens, InvalidArgument, false,
      "%s has shape %s; for slot_mapping of %lld tokens and %lld kv heads of %lld "
      "pass [num_tokens, %lld, %lld], num_tokens >= %lld (more rows are padding)",
      name, sizes_text(t).text, static_cast<long long>(tokens), static_cast<long long>(g.kv_heads),
      static_cast<long long>(g.head_size), static_cast<long long>(g.kv_heads),
      static_cast<long long>(g.head_size), static_cast<long long>(tokens));
  return true;
}

// kiln::reshape_and_cache and its .paged_layout (`layout`): the caches (check_caches; fills
// *g), slot_mapping [num_tokens] with every slot before the caches' end (a negative one is
// padding), and key and value (check_cache_entries) with at least num_tokens rows.
inline bool check_reshape_and_cache_arguments(KernelRuntimeContext& ctx, const Tensor& key,
                                              const Tensor& value, const Tensor& key_cache,
                                              const Tensor& value_cache, const Tensor& slot_mapping,
                                              CacheLayout layout, CacheGeometry* g) {
  if (!check_caches(ctx, key_cache, value_cache, layout, kReshapeAndCacheOverloads, g) ||
      !check_index_tensor(ctx, slot_mapping, "slot_mapping", 1)) {
    return false;
  }
  const int64_t tokens = slot_mapping.size(0);
  if (!check_cache_entries(ctx, key, "key", key_cache, *g, tokens) ||
      !check_cache_entries(ctx, value, "value", key_cache, *g, tokens)) {
    return false;
  }
  const int64_t slots = g->slots();
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

// kiln::paged_attention.out and .paged_layout_out (`layout`): query [num_seqs, num_heads,
// head_size] (a row view: sequences any stride apart), the caches (check_caches; fills *g) of
// its dtype and head_size with num_heads a multiple of their kv heads, block_tables [num_seqs,
// max_blocks] and context_lens [num_seqs] whose lengths and the blocks they use fit, and
// alibi_slopes [num_heads] of Float.
inline bool check_paged_attention_arguments(KernelRuntimeContext& ctx, const Tensor& query,
                                            const Tensor& key_cache, const Tensor& value_cache,
                                            const Tensor& block_tables, const Tensor& context_lens,
                                            const std::optional<Tensor>& alibi_slopes,
                                            CacheLayout layout, CacheGeometry* g) {
  if (!check_row_activation(ctx, query, "query")) return false;
  KILN_KERNEL_CHECK_MSG(ctx, query.dim() == 3, InvalidArgument, false,
                        "query must have 3 dims [num_seqs, num_heads, head_size], but has shape %s",
                        sizes_text(query).text);
  if (!check_activation(ctx, key_cache, "key_cache") ||
      !check_dtype_matches(ctx, key_cache, "key_cache", query.scalar_type(), "query") ||
      !check_caches(ctx, key_cache, value_cache, layout, kPagedAttentionOverloads, g) ||
      !check_index_tensor(ctx, block_tables, "block_tables", 2) ||
      !check_index_tensor(ctx, context_lens, "context_lens", 1)) {
    return false;
  }
  const int64_t seqs = query.size(0);
  const int64_t heads = query.size(1);
  const int64_t head_size = query.size(2);
  KILN_KERNEL_CHECK_MSG(ctx, g->head_size == head_size, InvalidArgument, false,
                        "query has head_size %lld but key_cache has shape %s (%s); pass matching "
                        "head sizes",
                        static_cast<long long>(head_size), sizes_text(key_cache).text,
                        layout == CacheLayout::kFlash
                            ? "[num_blocks, block_size, num_kv_heads, head_size]"
                            : "[num_blocks, num_kv_heads, head_size / x, block_size, x]");
  KILN_KERNEL_CHECK_MSG(ctx, g->block_size > 0, InvalidArgument, false,
                        "key_cache has shape %s: its block_size (dim %d) must be positive",
                        sizes_text(key_cache).text, layout == CacheLayout::kFlash ? 1 : 3);
  KILN_KERNEL_CHECK_MSG(ctx, g->kv_heads > 0 && heads % g->kv_heads == 0, InvalidArgument, false,
                        "query has %lld heads, not a multiple of the caches' %lld kv heads",
                        static_cast<long long>(heads), static_cast<long long>(g->kv_heads));
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
  const int64_t block_size = g->block_size;
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
      KILN_KERNEL_CHECK_MSG(ctx, block >= 0 && block < g->num_blocks, InvalidArgument, false,
                            "block_tables[%lld][%lld] = %lld is not a block of the caches' %lld",
                            static_cast<long long>(s), static_cast<long long>(b),
                            static_cast<long long>(block), static_cast<long long>(g->num_blocks));
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
    KILN_KERNEL_CHECK_MSG(ctx, position >= 0, InvalidArgument, false,
                          "seq_lens[%lld] = %lld is negative; pass each sequence's length so far "
                          "(its next token's position, 0 or more)",
                          static_cast<long long>(i), static_cast<long long>(position));
    KILN_KERNEL_CHECK_MSG(
        ctx, position / block_size < max_blocks, InvalidArgument, false,
        "seq_lens[%lld] = %lld: the next position needs block %lld of the sequence (blocks "
        "of %lld tokens), past block_tables' %lld blocks per sequence",
        static_cast<long long>(i), static_cast<long long>(position),
        static_cast<long long>(position / block_size), static_cast<long long>(block_size),
        static_cast<long long>(max_blocks));
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
