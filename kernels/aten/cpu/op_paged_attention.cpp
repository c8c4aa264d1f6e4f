// ATen mode: kiln::paged_attention.out and .paged_layout_out with libtorch's ops, under the names
// custom_ops.yaml binds: per sequence, its context gathered through the block table from the
// caches viewed token-major (the paged layout's permuted), grouped kv heads repeated, softmax in
// float; a context longer than one partition of 512 tokens takes vLLM's v2 route (each
// partition's maximum, sum and normalised result, then their combination).
#include <ATen/ATen.h>

#include <cmath>
#include <optional>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {
namespace {

constexpr int64_t kPartition = 512;  // vLLM's PARTITION_SIZE, as the portable kernel's

// Rows of `length` tokens' keys or values [length, num_kv_heads, head_size] in float.
at::Tensor gather(const at::Tensor& cache, const CacheGeometry& g, const at::Tensor& blocks,
                  const at::Tensor& offsets, bool key) {
  at::Tensor rows;
  if (g.layout == CacheLayout::kFlash) {
    rows = cache.index({blocks, offsets});
  } else if (key) {
    rows = cache.permute({0, 3, 1, 2, 4}).index({blocks, offsets});
  } else {
    rows = cache.permute({0, 3, 1, 2}).index({blocks, offsets});
  }
  return rows.reshape({-1, g.kv_heads, g.head_size}).to(at::kFloat);
}

// softmax(logits [heads, length]) . values [length, heads, head_size], over partitions of
// kPartition tokens combined as vLLM's paged_attention_v2_reduce_kernel does.
at::Tensor partitioned_softmax(const at::Tensor& logits, const at::Tensor& values) {
  const int64_t heads = logits.size(0), length = logits.size(1);
  const int64_t parts = (length + kPartition - 1) / kPartition;
  const int64_t padding = parts * kPartition - length;
  const at::Tensor padded =
      at::constant_pad_nd(logits, {0, padding}, -INFINITY).view({heads, parts, kPartition});
  const at::Tensor maxima = std::get<0>(padded.max(-1));             // [heads, parts]
  const at::Tensor weights = (padded - maxima.unsqueeze(-1)).exp();  // [heads, parts, P]
  const at::Tensor sums = weights.sum(-1);                           // [heads, parts]
  const at::Tensor rows = at::constant_pad_nd(values, {0, 0, 0, 0, 0, padding})
                              .view({parts, kPartition, heads, values.size(2)});
  const at::Tensor partial = at::einsum("hpl,plhd->hpd", {weights / sums.unsqueeze(-1), rows});
  const at::Tensor largest = std::get<0>(maxima.max(-1, /*keepdim=*/true));  // [heads, 1]
  const at::Tensor rescaled = sums * (maxima - largest).exp();               // [heads, parts]
  return (partial * rescaled.unsqueeze(-1)).sum(1) / rescaled.sum(-1, /*keepdim=*/true);
}

Tensor& attend_paged(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                     const Tensor& value_cache, const Tensor& block_tables,
                     const Tensor& context_lens, double scale,
                     const std::optional<Tensor>& alibi_slopes, CacheLayout layout, Tensor& out) {
  CacheGeometry g{};
  if (!check_paged_attention_arguments(ctx, query, key_cache, value_cache, block_tables,
                                       context_lens, alibi_slopes, layout, &g)) {
    return out;
  }
  const int64_t heads = query.size(1);
  const at::Tensor tables = block_tables.to(at::kLong);
  const at::Tensor lengths = context_lens.to(at::kLong);
  at::Tensor result;
  if (!aten_kernels::run_aten(ctx, [&] {
        result = at::zeros(query.sizes(), query.options().dtype(at::kFloat));
        for (int64_t s = 0; s < query.size(0); ++s) {
          const int64_t length = lengths.const_data_ptr<int64_t>()[s];
          if (length == 0) continue;
          const at::Tensor tokens = at::arange(length, tables.options());
          const at::Tensor blocks = tables[s].index_select(0, tokens.div(g.block_size, "floor"));
          const at::Tensor offsets = tokens.remainder(g.block_size);
          const int64_t group = heads / g.kv_heads;
          const at::Tensor keys =
              gather(key_cache, g, blocks, offsets, true).repeat_interleave(group, 1);
          const at::Tensor values =
              gather(value_cache, g, blocks, offsets, false).repeat_interleave(group, 1);
          at::Tensor logits = at::einsum("hd,lhd->hl", {query[s].to(at::kFloat), keys}) * scale;
          if (alibi_slopes.has_value()) {
            logits = logits + alibi_slopes->unsqueeze(1) * (tokens - length + 1).to(at::kFloat);
          }
          result[s].copy_(length > kPartition
                              ? partitioned_softmax(logits, values)
                              : at::einsum("hl,lhd->hd", {logits.softmax(-1), values}));
        }
        result = result.to(query.scalar_type());
      })) {
    return out;
  }
  if (!resize_or_fail(ctx, out, result.sizes()) ||
      !check_row_activation(ctx, out, "out", /*is_out=*/true)) {
    return out;
  }
  aten_kernels::store(ctx, result, out);
  return out;
}

}  // namespace

Tensor& paged_attention_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                            const Tensor& value_cache, const Tensor& block_tables,
                            const Tensor& context_lens, double scale,
                            const std::optional<Tensor>& alibi_slopes, Tensor& out) {
  return attend_paged(ctx, query, key_cache, value_cache, block_tables, context_lens, scale,
                      alibi_slopes, CacheLayout::kFlash, out);
}

Tensor& paged_attention_paged_layout_out(KernelRuntimeContext& ctx, const Tensor& query,
                                         const Tensor& key_cache, const Tensor& value_cache,
                                         const Tensor& block_tables, const Tensor& context_lens,
                                         double scale, const std::optional<Tensor>& alibi_slopes,
                                         Tensor& out) {
  return attend_paged(ctx, query, key_cache, value_cache, block_tables, context_lens, scale,
                      alibi_slopes, CacheLayout::kPaged, out);
}

}  // namespace kiln::portable::native
