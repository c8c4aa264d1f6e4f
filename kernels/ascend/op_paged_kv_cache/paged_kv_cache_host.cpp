// Host wrapper of kiln::reshape_and_cache.paged_layout on Ascend: the portable kernel's checks
// (arguments.h) run first and what they refuse declines, so a refused call writes nothing; the
// slots are read (the last of tokens sharing one wins, padding skipped, and so are key and
// value rows past slot_mapping's), the writes grouped by cache block into the kernel's plan, and
// the caches go through device memory. key and value may be row views, read where they lie
// (row_image.h). Declines tiles a DataCopy cannot move (head_size * block_size not whole 32-byte
// blocks) or that do not fit in UB.
#include <algorithm>
#include <cstdint>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/common/row_image.h"
#include "kernels/ascend/op_kv_cache/kv_cache_write.h"
#include "kernels/ascend/op_paged_kv_cache/paged_kv_cache_kernels.h"
#include "kernels/ascend/op_paged_kv_cache/paged_kv_cache_tiling.h"
#include "kernels/portable/cpu/util/llm/arguments.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_PAGED_KV_CACHE)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_PAGED_KV_CACHE, launch_paged_kv_cache, uint32_t, "paged_kv_cache")

// The plan (paged_kv_cache_tiling.h) of the writes `slots` leaves after keep_last_writes, in
// `plan` (room for 3 * tokens + 1 entries; `order`, scratch for tokens); returns the blocks
// written and sets *writes.
uint32_t plan_writes(const int64_t* slots, int64_t tokens, int64_t block_size, int64_t* order,
                     int64_t* plan, uint64_t* writes) {
  int64_t count = 0;
  for (int64_t t = 0; t < tokens; ++t) {
    if (slots[t] >= 0) order[count++] = t;
  }
  std::sort(order, order + count, [slots](int64_t a, int64_t b) { return slots[a] < slots[b]; });
  uint32_t touched = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t block = slots[order[i]] / block_size;
    if (i == 0 || block != slots[order[i - 1]] / block_size) plan[touched++] = block;
  }
  int64_t* starts = plan + touched;
  int64_t* list = starts + touched + 1;
  uint32_t b = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t slot = slots[order[i]];
    if (i == 0 || slot / block_size != slots[order[i - 1]] / block_size) starts[b++] = i;
    list[2 * i] = order[i];
    list[2 * i + 1] = slot % block_size;
  }
  starts[touched] = count;
  *writes = static_cast<uint64_t>(count);
  return touched;
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

void reshape_and_cache_paged_layout(KernelRuntimeContext& ctx, const Tensor& key,
                                    const Tensor& value, Tensor& key_cache, Tensor& value_cache,
                                    const Tensor& slot_mapping) {
  KernelRuntimeContext checks;
  portable::CacheGeometry g{};
  if (!portable::check_reshape_and_cache_arguments(checks, key, value, key_cache, value_cache,
                                                   slot_mapping, portable::CacheLayout::kPaged,
                                                   &g)) {
    refused(ctx, checks);
    return;
  }
  const ScalarType dtype = key_cache.scalar_type();
  if (!accept_tensor(ctx, key_cache, "key_cache", dtype) ||
      !accept_tensor(ctx, value_cache, "value_cache", dtype)) {
    return;
  }
  const size_t width = key_cache.element_size();
  const uint64_t tile_bytes = static_cast<uint64_t>(g.head_size * g.block_size) * width;
  if (tile_bytes % 32 != 0) {
    decline(ctx, "caches whose [head_size, block_size] tiles are not whole 32-byte blocks");
    return;
  }
  const int64_t tokens = slot_mapping.size(0);
  if (tokens == 0 || g.head_size == 0) return;
  const Platform device = platform();
  PagedKvCacheTiling tiling = paged_kv_cache_tiling(
      0, 0, static_cast<uint32_t>(g.kv_heads), static_cast<uint32_t>(g.head_size),
      static_cast<uint32_t>(g.block_size), width, device.vector_cores);
  if (paged_kv_cache_ub_bytes(tiling.head_size, tiling.block_size, tiling.row_copy, width) + 256 >
      device.ub_bytes) {
    decline(ctx, "block_size %lld with head_size %lld (two tiles beyond UB)",
            static_cast<long long>(g.block_size), static_cast<long long>(g.head_size));
    return;
  }
  // A token's row of every head is a row of the images; the kernel copies one head's row at a
  // time, row_copy elements from where it starts.
  const uint64_t row_len = static_cast<uint64_t>(g.kv_heads * g.head_size);
  const RowAccess reads{row_len, row_len - g.head_size + tiling.row_copy, /*is_out=*/false};
  RowImage key_image{};
  RowImage value_image{};
  if (!plan_row_image(ctx, key, "key", row_len, reads, &key_image) ||
      !plan_row_image(ctx, value, "value", row_len, reads, &value_image)) {
    return;
  }
  auto* slots = static_cast<int64_t*>(
      staging_memory(ctx, 6 * static_cast<size_t>(tokens + 1) * sizeof(int64_t), "slot_mapping"));
  if (slots == nullptr) return;
  int64_t* order = slots + tokens;
  int64_t* plan = order + tokens;
  for (int64_t t = 0; t < tokens; ++t) slots[t] = portable::index_at(slot_mapping, t);
  keep_last_writes(slots, order, tokens);
  uint64_t writes = 0;
  const uint32_t touched = plan_writes(slots, tokens, g.block_size, order, plan, &writes);
  if (touched == 0) return;  // padding only
  tiling = paged_kv_cache_tiling(writes, touched, tiling.kv_heads, tiling.head_size,
                                 tiling.block_size, width, device.vector_cores);
  tiling.keys = key_image.rows;
  tiling.values = value_image.rows;

  const size_t cache_bytes = static_cast<size_t>(key_cache.numel()) * width;
  const size_t plan_bytes = (2 * touched + 1 + 2 * writes) * sizeof(int64_t);
  DeviceBuffer k, v, p, kc, vc, t;
  if (!upload_row_image(ctx, k, key, key_image) || !upload_row_image(ctx, v, value, value_image) ||
      !p.upload(ctx, plan, plan_bytes) ||
      !kc.upload(ctx, key_cache.const_data_ptr(), cache_bytes) ||
      !vc.upload(ctx, value_cache.const_data_ptr(), cache_bytes) ||
      !t.upload(ctx, &tiling, sizeof(tiling)) ||
      !finish_launch(ctx,
                     launch_paged_kv_cache(static_cast<uint32_t>(width), tiling.block_dim, k.get(),
                                           v.get(), p.get(), kc.get(), vc.get(), t.get())) ||
      !kc.download(ctx, key_cache.mutable_data_ptr(), cache_bytes)) {
    return;
  }
  (void)vc.download(ctx, value_cache.mutable_data_ptr(), cache_bytes);
}

}  // namespace kiln::ascend::native
