// Host wrapper of kiln::reshape_and_cache (the flash layout) on Ascend: the caches go to device
// memory, the kernel writes each of the first slot_mapping.size(0) tokens' rows into its slot
// (rows past them are vLLM's batch padding, never read), and the caches come back. key and value
// may be row views (a split of qkv): their rows go to device memory where the view has them and
// the kernel reads them by their stride (row_image.h), or padded when its DataCopy cannot. What
// the portable kernel refuses declines, and the portable kernel reports it (a slot past the
// caches among them, so a refused call writes nothing).
#include <cstdint>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/common/row_image.h"
#include "kernels/ascend/op_kv_cache/kv_cache_tiling.h"
#include "kernels/ascend/op_kv_cache/kv_cache_write.h"
#include "kernels/portable/cpu/util/llm/arguments.h"

namespace kiln::ascend {
namespace {

// slot_mapping as int64 in `slots`; then only the last of tokens that share a slot keeps it
// (keep_last_writes). `order` is scratch for as many tokens.
void read_slots(const Tensor& slot_mapping, int64_t* slots, int64_t* order) {
  const int64_t tokens = slot_mapping.size(0);
  for (int64_t t = 0; t < tokens; ++t) slots[t] = portable::index_at(slot_mapping, t);
  keep_last_writes(slots, order, tokens);
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

void reshape_and_cache(KernelRuntimeContext& ctx, const Tensor& key, const Tensor& value,
                       Tensor& key_cache, Tensor& value_cache, const Tensor& slot_mapping) {
  KernelRuntimeContext checks;
  portable::CacheGeometry g{};
  if (!portable::check_reshape_and_cache_arguments(checks, key, value, key_cache, value_cache,
                                                   slot_mapping, portable::CacheLayout::kFlash,
                                                   &g)) {
    refused(ctx, checks);
    return;
  }
  const ScalarType dtype = key_cache.scalar_type();
  if (!accept_tensor(ctx, key_cache, "key_cache", dtype) ||
      !accept_tensor(ctx, value_cache, "value_cache", dtype)) {
    return;
  }
  const int64_t tokens = slot_mapping.size(0);
  const uint64_t row_len = static_cast<uint64_t>(g.kv_heads * g.head_size);
  if (tokens == 0 || row_len == 0) return;
  const size_t width = key_cache.element_size();
  const Platform device = platform();
  KvCacheTiling tiling =
      kv_cache_tiling(static_cast<uint64_t>(tokens), row_len, static_cast<uint64_t>(g.slots()), 2,
                      width, device.ub_bytes, device.vector_cores);
  // The kernel copies each row padded to the pitch, or chunks of it up to the pitch.
  const uint64_t pitch = tiling.split.pitch;
  const RowAccess reads{pitch, pitch, /*is_out=*/false};
  RowImage key_image{};
  RowImage value_image{};
  if (!plan_row_image(ctx, key, "key", row_len, reads, &key_image) ||
      !plan_row_image(ctx, value, "value", row_len, reads, &value_image)) {
    return;
  }
  tiling.keys = key_image.rows;
  tiling.values = value_image.rows;
  auto* slots = static_cast<int64_t*>(
      staging_memory(ctx, 2 * static_cast<size_t>(tokens) * sizeof(int64_t), "slot_mapping"));
  if (slots == nullptr) return;
  read_slots(slot_mapping, slots, slots + tokens);

  DeviceBuffer k, v, kc, vc;
  if (!upload_row_image(ctx, k, key, key_image) || !upload_row_image(ctx, v, value, value_image) ||
      !upload_cache(ctx, key_cache, row_len, kc) || !upload_cache(ctx, value_cache, row_len, vc) ||
      !write_cache_images(ctx, tiling, {k.get(), tiling.keys}, {v.get(), tiling.values}, slots,
                          width, kc.get(), vc.get()) ||
      !download_cache(ctx, kc, row_len, key_cache)) {
    return;
  }
  (void)download_cache(ctx, vc, row_len, value_cache);
}

}  // namespace kiln::ascend::native
