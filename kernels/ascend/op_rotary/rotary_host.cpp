// Host wrapper of kiln::rotary_embedding.out on Ascend. The host stages the rotated pairs of
// every query and key head as x and y planes (NeoX: the two halves; GPT-J: even and odd
// elements) and the cache rows as cosine and sine planes, the kernel rotates them, and the host
// puts the results back in the heads' layout; the head_size - rot_dim elements a partial rotary
// leaves alone are copied as they are. Query, key and the outs may be row views (arguments.h):
// the host stages each token's heads from where its row lies and puts them back there, so a
// split of qkv rotates in place with no copy of its own. Anything the portable kernel would
// refuse declines, and the portable kernel reports it.
#include <cstdint>
#include <cstring>
#include <optional>
#include <tuple>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_rotary/rotary_kernels.h"
#include "kernels/ascend/op_rotary/rotary_tiling.h"
#include "kernels/portable/cpu/util/llm/arguments.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_ROTARY)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_ROTARY, launch_rotary, uint32_t, "rotary")

// Where pair i of a head keeps its x and y (elements from the head's start).
struct PairLayout {
  bool neox;
  int64_t half;
  int64_t x(int64_t i) const { return neox ? i : 2 * i; }
  int64_t y(int64_t i) const { return neox ? half + i : 2 * i + 1; }
};

// Copies `heads` heads of one token between the heads' layout (`head`) and the staged planes
// (`staged`), `to_planes` giving the direction.
void stage_heads(uint8_t* head, uint8_t* staged, int64_t heads, int64_t head_size, uint32_t plane,
                 const PairLayout& pairs, size_t size, bool to_planes) {
  for (int64_t h = 0; h < heads; ++h) {
    uint8_t* src = head + h * head_size * size;
    uint8_t* dst = staged + h * 2 * plane * size;
    for (int64_t i = 0; i < pairs.half; ++i) {
      uint8_t* x = src + pairs.x(i) * size;
      uint8_t* y = src + pairs.y(i) * size;
      uint8_t* px = dst + i * size;
      uint8_t* py = dst + (plane + i) * size;
      if (to_planes) {
        std::memcpy(px, x, size);
        std::memcpy(py, y, size);
      } else {
        std::memcpy(x, px, size);
        std::memcpy(y, py, size);
      }
    }
  }
}

// The byte offset of token t, whose heads are `run` elements, in a tensor laid out as `rows`
// (a tensor without heads has no tokens to place).
size_t token_at(const portable::RowView& rows, int64_t t, int64_t run, size_t size) {
  return run == 0 ? 0 : static_cast<size_t>(rows.offset(t, run)) * size;
}

// Copies each of `tokens` tokens' `run` elements from `src` to `dst`, each laid out as its rows
// say, unless they are one tensor (the in-place form).
void copy_tokens(const Tensor& src, const portable::RowView& src_rows, Tensor& dst,
                 const portable::RowView& dst_rows, int64_t tokens, int64_t run, size_t size) {
  if (dst.const_data_ptr() == src.const_data_ptr() && dst_rows.stride == src_rows.stride) return;
  const auto* from = static_cast<const uint8_t*>(src.const_data_ptr());
  auto* to = static_cast<uint8_t*>(dst.mutable_data_ptr());
  for (int64_t t = 0; t < tokens && run > 0; ++t) {
    std::memmove(to + token_at(dst_rows, t, run, size), from + token_at(src_rows, t, run, size),
                 run * size);
  }
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

std::tuple<Tensor&, Tensor&> rotary_embedding_out(KernelRuntimeContext& ctx,
                                                  const Tensor& positions, const Tensor& query,
                                                  const std::optional<Tensor>& key,
                                                  int64_t head_size, const Tensor& cos_sin_cache,
                                                  bool is_neox, Tensor& query_out,
                                                  Tensor& key_out) {
  std::tuple<Tensor&, Tensor&> result(query_out, key_out);
  const ScalarType dtype = query.scalar_type();
  DeviceDtype heads_dtype;
  DeviceDtype cache_dtype;
  if (!accept_dtype(ctx, dtype, /*int32_ok=*/false, &heads_dtype) ||
      !accept_dtype(ctx, cos_sin_cache.scalar_type(), /*int32_ok=*/false, &cache_dtype)) {
    return result;
  }
  if (cache_dtype != heads_dtype && cache_dtype != DeviceDtype::Float) {
    decline(ctx, "a %s cos_sin_cache with %s heads", to_string(cos_sin_cache.scalar_type()),
            to_string(dtype));
    return result;
  }
  // The portable kernel's own checks (shared with it), on a scratch context: what it refuses
  // declines here, and the portable kernel reports it.
  KernelRuntimeContext checks;
  portable::HeadLayout q_layout{};
  portable::HeadLayout k_layout{};
  if (!portable::check_rotary_shapes(checks, positions, query, key, head_size, cos_sin_cache,
                                     &q_layout, &k_layout, /*row_views=*/true)) {
    refused(ctx, checks);
    return result;
  }
  if (!portable::check_rotary_positions(checks, positions, cos_sin_cache)) {
    decline(ctx, "a position outside the cos_sin_cache (%s)", checks.failure_message());
    return result;
  }
  const ScalarType index_dtype = positions.scalar_type();
  const int64_t q_heads = q_layout.heads;
  const int64_t k_heads = k_layout.heads;
  if (!accept_tensor(ctx, positions, "positions", index_dtype) ||
      !accept_input(ctx, query, "query", dtype, /*row_view=*/true) ||
      (key.has_value() && !accept_input(ctx, *key, "key", dtype, /*row_view=*/true)) ||
      !accept_input(ctx, cos_sin_cache, "cos_sin_cache", cos_sin_cache.scalar_type()) ||
      !accept_row_view(ctx, query_out, "query_out", dtype) ||
      !accept_row_view(ctx, key_out, "key_out", dtype)) {
    return result;
  }
  const int64_t tokens = positions.numel();
  const int64_t max_position = cos_sin_cache.size(0);
  const size_t staging_bytes = static_cast<size_t>(tokens) * sizeof(int64_t);
  auto* where = static_cast<int64_t*>(staging_memory(ctx, staging_bytes + 32, "positions"));
  if (where == nullptr) return result;
  for (int64_t t = 0; t < tokens; ++t) {
    where[t] = portable::index_at(positions, t);
  }
  const SizesType no_key[1] = {0};
  if (!resize_or_fail(ctx, query_out, query.sizes()) ||
      !resize_or_fail(ctx, key_out,
                      key.has_value() ? key->sizes() : ArrayRef<SizesType>(no_key, 1))) {
    return result;
  }
  if (!portable::check_row_activation(checks, query_out, "query_out", /*is_out=*/true) ||
      (key.has_value() &&
       !portable::check_row_activation(checks, key_out, "key_out", /*is_out=*/true))) {
    refused(ctx, checks);
    return result;
  }
  const size_t size = query.element_size();
  // Token t of each out, as of each input, starts at its rows' offset(t, heads * head_size).
  const int64_t q_run = q_heads * head_size;
  const int64_t k_run = k_heads * head_size;
  const portable::RowView q_out_rows = portable::row_view(query_out);
  const portable::RowView k_out_rows = key.has_value() ? portable::row_view(key_out) : q_out_rows;
  // The unrotated elements of every head (a partial rotary) are the inputs' own.
  copy_tokens(query, q_layout.rows, query_out, q_out_rows, tokens, q_run, size);
  if (key.has_value()) copy_tokens(*key, k_layout.rows, key_out, k_out_rows, tokens, k_run, size);
  const int64_t rot_dim = cos_sin_cache.size(1);
  if (tokens == 0 || rot_dim == 0 || q_heads + k_heads == 0) return result;

  const uint32_t heads = static_cast<uint32_t>(q_heads + k_heads);
  const size_t cache_size = cos_sin_cache.element_size();
  const Platform device = platform();
  const RotaryTiling tiling = rotary_tiling(
      static_cast<uint64_t>(tokens), static_cast<uint64_t>(max_position), heads,
      static_cast<uint64_t>(rot_dim / 2), size, cache_size, device.ub_bytes, device.vector_cores);
  if (tiling.tile_heads == 0) {
    decline(ctx, "rot_dim %lld (a head's planes do not fit in UB)",
            static_cast<long long>(rot_dim));
    return result;
  }
  const PairLayout pairs{is_neox, rot_dim / 2};
  const size_t head_bytes = 2 * tiling.plane * size;
  const size_t token_bytes = heads * head_bytes;
  const size_t staged_bytes = static_cast<size_t>(tokens) * token_bytes;
  const size_t cache_row_bytes = 2 * tiling.plane * cache_size;
  const size_t cache_bytes = static_cast<size_t>(max_position) * cache_row_bytes;
  auto* staged = static_cast<uint8_t*>(staging_memory(ctx, staged_bytes + cache_bytes, "heads"));
  if (staged == nullptr) return result;
  std::memset(staged, 0, staged_bytes + cache_bytes);
  uint8_t* q = static_cast<uint8_t*>(query_out.mutable_data_ptr());
  uint8_t* k = key.has_value() ? static_cast<uint8_t*>(key_out.mutable_data_ptr()) : nullptr;
  for (int64_t t = 0; t < tokens; ++t) {
    uint8_t* row = staged + t * token_bytes;
    stage_heads(q + token_at(q_out_rows, t, q_run, size), row, q_heads, head_size, tiling.plane,
                pairs, size, true);
    if (k != nullptr) {
      stage_heads(k + token_at(k_out_rows, t, k_run, size), row + q_heads * head_bytes, k_heads,
                  head_size, tiling.plane, pairs, size, true);
    }
  }
  // Cache row p: rot_dim / 2 cosines then as many sines, each padded to a plane.
  uint8_t* cache = staged + staged_bytes;
  const auto* src = static_cast<const uint8_t*>(cos_sin_cache.const_data_ptr());
  const size_t half_bytes = static_cast<size_t>(rot_dim / 2) * cache_size;
  for (int64_t p = 0; p < max_position; ++p) {
    const uint8_t* from = src + p * rot_dim * cache_size;
    std::memcpy(cache + p * cache_row_bytes, from, half_bytes);
    std::memcpy(cache + p * cache_row_bytes + tiling.plane * cache_size, from + half_bytes,
                half_bytes);
  }
  DeviceBuffer dp, dc, dx, dy, dt;
  if (!dp.upload(ctx, where, staging_bytes) || !dc.upload(ctx, cache, cache_bytes) ||
      !dx.upload(ctx, staged, staged_bytes) || !dy.allocate(ctx, staged_bytes) ||
      !dt.upload(ctx, &tiling, sizeof(tiling)) ||
      !finish_launch(ctx, launch_rotary(rotary_key(heads_dtype, cache_dtype), tiling.block_dim,
                                        dp.get(), dc.get(), dx.get(), dy.get(), dt.get())) ||
      !dy.download(ctx, staged, staged_bytes)) {
    return result;
  }
  for (int64_t t = 0; t < tokens; ++t) {
    uint8_t* row = staged + t * token_bytes;
    stage_heads(q + token_at(q_out_rows, t, q_run, size), row, q_heads, head_size, tiling.plane,
                pairs, size, false);
    if (k != nullptr) {
      stage_heads(k + token_at(k_out_rows, t, k_run, size), row + q_heads * head_bytes, k_heads,
                  head_size, tiling.plane, pairs, size, false);
    }
  }
  return result;
}

}  // namespace kiln::ascend::native
