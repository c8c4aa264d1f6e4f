// kiln::rotary_embedding.out: vLLM's rotary position embedding of query and key heads. For token
// t at position p = positions[t], cos_sin_cache[p] holds rot_dim / 2 cosines then as many sines;
// the first rot_dim elements of every head rotate by them in pairs, (x, y) -> (x cos - y sin,
// y cos + x sin): NeoX pairs element i with i + rot_dim / 2, GPT-J pairs 2i with 2i + 1. The
// remaining head_size - rot_dim elements are copied. Computed in float, rounded once; the outs
// may be the inputs themselves (vLLM's in-place form).
#include <cstring>
#include <optional>
#include <tuple>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// One head's pairs [start, start + m): loads x and y (NeoX: halves, GPT-J: interleaved) into
// float, rotates them by cos/sin and stores them into `dst` (which may be `src`).
void rotate_pairs(const char* src, char* dst, ScalarType type, bool neox, int64_t half,
                  int64_t start, int64_t m, const float* cos, const float* sin) {
  const size_t size = element_size(type);
  const int64_t x_offset = neox ? start : 2 * start;
  const int64_t y_offset = neox ? half + start : 2 * start + 1;
  const int64_t stride = neox ? 1 : 2;
  float x[kLlmChunk];
  float y[kLlmChunk];
  load_floats(src + x_offset * size, type, stride, m, x);
  load_floats(src + y_offset * size, type, stride, m, y);
  float rx[kLlmChunk];
  float ry[kLlmChunk];
  for (int64_t i = 0; i < m; ++i) {
    rx[i] = x[i] * cos[i] - y[i] * sin[i];
    ry[i] = y[i] * cos[i] + x[i] * sin[i];
  }
  if (neox) {
    store_floats(rx, m, type, dst + x_offset * size);
    store_floats(ry, m, type, dst + y_offset * size);
    return;
  }
  float pairs[2 * kLlmChunk];
  for (int64_t i = 0; i < m; ++i) {
    pairs[2 * i] = rx[i];
    pairs[2 * i + 1] = ry[i];
  }
  store_floats(pairs, 2 * m, type, dst + x_offset * size);
}

// Rotates the `heads` heads of one token at `in` into `out` (which may be `in`).
void rotate_token(const char* in, char* out, ScalarType type, int64_t heads, int64_t head_size,
                  int64_t rot_dim, bool neox, const char* cache_row, ScalarType cache_type) {
  const size_t size = element_size(type);
  const int64_t half = rot_dim / 2;
  const size_t cache_size = element_size(cache_type);
  if (in != out) {
    std::memcpy(out, in, heads * head_size * size);  // the unrotated tail of every head
  }
  float cos[kLlmChunk];
  float sin[kLlmChunk];
  for (int64_t start = 0; start < half; start += kLlmChunk) {
    const int64_t m = half - start < kLlmChunk ? half - start : kLlmChunk;
    load_floats(cache_row + start * cache_size, cache_type, 1, m, cos);
    load_floats(cache_row + (half + start) * cache_size, cache_type, 1, m, sin);
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t offset = h * head_size * size;
      rotate_pairs(out + offset, out + offset, type, neox, half, start, m, cos, sin);
    }
  }
}

// Rotates every token of `src` (laid out as `layout`) into `dst`, its row view.
void rotate_tokens(const KernelRuntimeContext& ctx, const Tensor& positions, const Tensor& src,
                   Tensor& dst, const HeadLayout& layout, int64_t head_size,
                   const Tensor& cos_sin_cache, bool neox) {
  const ScalarType type = src.scalar_type();
  const size_t size = element_size(type);
  const int64_t rot_dim = cos_sin_cache.size(1);
  const ScalarType cache_type = cos_sin_cache.scalar_type();
  const char* cache = static_cast<const char*>(cos_sin_cache.const_data_ptr());
  const size_t cache_row_bytes = rot_dim * element_size(cache_type);
  const int64_t run = layout.heads * head_size;
  const RowView out_rows = row_view(dst);
  const char* in = static_cast<const char*>(src.const_data_ptr());
  char* out = static_cast<char*>(dst.mutable_data_ptr());
  parallel_for(ctx, 0, positions.numel(), items_grain(run), [&](int64_t first, int64_t last) {
    for (int64_t t = first; t < last; ++t) {
      rotate_token(in + layout.rows.offset(t, run) * size, out + out_rows.offset(t, run) * size,
                   type, layout.heads, head_size, rot_dim, neox,
                   cache + index_at(positions, t) * cache_row_bytes, cache_type);
    }
  });
}

}  // namespace

std::tuple<Tensor&, Tensor&> rotary_embedding_out(KernelRuntimeContext& ctx,
                                                  const Tensor& positions, const Tensor& query,
                                                  const std::optional<Tensor>& key,
                                                  int64_t head_size, const Tensor& cos_sin_cache,
                                                  bool is_neox, Tensor& query_out,
                                                  Tensor& key_out) {
  std::tuple<Tensor&, Tensor&> result(query_out, key_out);
  HeadLayout q_layout{};
  HeadLayout k_layout{};
  if (!check_rotary_arguments(ctx, positions, query, key, head_size, cos_sin_cache, &q_layout,
                              &k_layout, /*row_views=*/true)) {
    return result;
  }
  const ScalarType dtype = query.scalar_type();
  if (!check_tensor(ctx, query_out, "query_out") || !check_tensor(ctx, key_out, "key_out") ||
      !check_out_dtype_is(ctx, query_out, dtype) || !check_out_dtype_is(ctx, key_out, dtype) ||
      !resize_or_fail(ctx, query_out, query.sizes())) {
    return result;
  }
  // Without a key, key_out becomes empty.
  const SizesType no_key[1] = {0};
  if (!resize_or_fail(ctx, key_out,
                      key.has_value() ? key->sizes() : ArrayRef<SizesType>(no_key, 1)) ||
      !check_row_activation(ctx, query_out, "query_out", /*is_out=*/true) ||
      (key.has_value() && !check_row_activation(ctx, key_out, "key_out", /*is_out=*/true))) {
    return result;
  }
  rotate_tokens(ctx, positions, query, query_out, q_layout, head_size, cos_sin_cache, is_neox);
  if (key.has_value()) {
    rotate_tokens(ctx, positions, *key, key_out, k_layout, head_size, cos_sin_cache, is_neox);
  }
  return result;
}

}  // namespace kiln::portable::native
