// ATen mode: kiln::reshape_and_cache and .paged_layout with libtorch's ops, under the names
// custom_ops.yaml binds: index_put_ of the first slot_mapping.size(0) rows of key and value
// (later rows are padding; negative slots skipped) into the caches viewed token-major
// [num_blocks, block_size, num_kv_heads, ...] (the paged layout's caches permuted to it).
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {
namespace {

// `cache` as [num_blocks, block_size, num_kv_heads, ...] (a view): the flash layout as it is;
// a paged key cache [num_blocks, num_kv_heads, head_size / x, block_size, x] and value cache
// [num_blocks, num_kv_heads, head_size, block_size] permuted.
at::Tensor token_major(const at::Tensor& cache, CacheLayout layout) {
  if (layout == CacheLayout::kFlash) return cache;
  return cache.dim() == 5 ? cache.permute({0, 3, 1, 2, 4}) : cache.permute({0, 3, 1, 2});
}

void write_caches(KernelRuntimeContext& ctx, const Tensor& key, const Tensor& value,
                  Tensor& key_cache, Tensor& value_cache, const Tensor& slot_mapping,
                  CacheLayout layout) {
  CacheGeometry g{};
  if (!check_reshape_and_cache_arguments(ctx, key, value, key_cache, value_cache, slot_mapping,
                                         layout, &g)) {
    return;
  }
  const int64_t tokens = slot_mapping.size(0);
  aten_kernels::run_aten(ctx, [&] {
    const at::Tensor mapping = slot_mapping.to(at::kLong);
    const at::Tensor keep = mapping.ge(0);
    const at::Tensor slots = mapping.masked_select(keep);
    const at::Tensor blocks = slots.div(g.block_size, "floor");
    const at::Tensor offsets = slots.remainder(g.block_size);
    const at::Tensor k = key.narrow(0, 0, tokens).reshape({tokens, g.kv_heads, g.head_size});
    const at::Tensor v = value.narrow(0, 0, tokens).reshape({tokens, g.kv_heads, g.head_size});
    const at::Tensor key_rows = k.index({keep});
    token_major(key_cache, layout)
        .index_put_({blocks, offsets},
                    layout == CacheLayout::kFlash
                        ? key_rows
                        : key_rows.reshape({-1, g.kv_heads, g.head_size / g.x, g.x}));
    token_major(value_cache, layout).index_put_({blocks, offsets}, v.index({keep}));
  });
}

}  // namespace

void reshape_and_cache(KernelRuntimeContext& ctx, const Tensor& key, const Tensor& value,
                       Tensor& key_cache, Tensor& value_cache, const Tensor& slot_mapping) {
  write_caches(ctx, key, value, key_cache, value_cache, slot_mapping, CacheLayout::kFlash);
}

void reshape_and_cache_paged_layout(KernelRuntimeContext& ctx, const Tensor& key,
                                    const Tensor& value, Tensor& key_cache, Tensor& value_cache,
                                    const Tensor& slot_mapping) {
  write_caches(ctx, key, value, key_cache, value_cache, slot_mapping, CacheLayout::kPaged);
}

}  // namespace kiln::portable::native
