// Host wrapper of kiln::reshape_and_cache on Ascend: the caches go to device memory, the kernel
// writes each token's rows into its slot, and the caches come back. The wrapper takes only the
// inputs the portable kernel accepts; anything else declines, and the portable kernel reports it
// (a slot past the caches among them, so a refused call writes nothing).
#include <algorithm>
#include <cstdint>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_kv_cache/kv_cache_kernels.h"
#include "kernels/ascend/op_kv_cache/kv_cache_tiling.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_KV_CACHE)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_KV_CACHE, launch_kv_cache, uint32_t, "kv_cache")

// A cache of an activation dtype, in the default dim order: [num_blocks, block_size,
// num_kv_heads, head_size].
bool accept_cache(KernelRuntimeContext& ctx, const Tensor& cache, const char* name) {
  const ScalarType dtype = cache.scalar_type();
  if (dtype != ScalarType::Float && dtype != ScalarType::Half && dtype != ScalarType::BFloat16) {
    return decline(ctx, "%s of dtype %s", name, to_string(dtype));
  }
  if (!accept_tensor(ctx, cache, name, dtype)) return false;
  return cache.dim() == 4 ||
         decline(ctx, "a %lld-dim %s", static_cast<long long>(cache.dim()), name);
}

// key or value: [tokens, num_kv_heads, head_size] or [tokens, num_kv_heads * head_size] of the
// caches' dtype.
bool accept_entries(KernelRuntimeContext& ctx, const Tensor& t, const char* name,
                    const Tensor& cache, int64_t tokens) {
  if (!accept_tensor(ctx, t, name, cache.scalar_type())) return false;
  const int64_t heads = cache.size(2);
  const int64_t head_size = cache.size(3);
  const bool split = t.dim() == 3 && t.size(1) == heads && t.size(2) == head_size;
  const bool flat = t.dim() == 2 && t.size(1) == heads * head_size;
  return ((split || flat) && t.size(0) == tokens) || decline(ctx, "%s of another shape", name);
}

// slot_mapping as int64 in `slots`; declines a slot past the caches' `count`. Of tokens that
// share a slot only the last one keeps it (its write is the one that stays, as in the portable
// kernel's order); the others, like padding, get -1. `order` is scratch for as many tokens.
bool read_slots(KernelRuntimeContext& ctx, const Tensor& slot_mapping, int64_t count,
                int64_t* slots, int64_t* order) {
  const int64_t tokens = slot_mapping.size(0);
  const bool int64 = slot_mapping.scalar_type() == ScalarType::Long;
  for (int64_t t = 0; t < tokens; ++t) {
    slots[t] = int64 ? slot_mapping.const_data_ptr<int64_t>()[t]
                     : slot_mapping.const_data_ptr<int32_t>()[t];
    if (slots[t] >= count) {
      return decline(ctx, "a slot past the caches (slot_mapping[%lld])", static_cast<long long>(t));
    }
    order[t] = t;
  }
  std::sort(order, order + tokens, [slots](int64_t a, int64_t b) {
    return slots[a] != slots[b] ? slots[a] < slots[b] : a < b;
  });
  for (int64_t i = 0; i + 1 < tokens; ++i) {
    if (slots[order[i]] >= 0 && slots[order[i]] == slots[order[i + 1]]) slots[order[i]] = -1;
  }
  return true;
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

void reshape_and_cache(KernelRuntimeContext& ctx, const Tensor& key, const Tensor& value,
                       Tensor& key_cache, Tensor& value_cache, const Tensor& slot_mapping) {
  if (!accept_cache(ctx, key_cache, "key_cache") ||
      !accept_cache(ctx, value_cache, "value_cache") ||
      !accept_tensor(ctx, value_cache, "value_cache", key_cache.scalar_type())) {
    return;
  }
  if (!value_cache.sizes().equals(key_cache.sizes())) {
    decline(ctx, "caches of different shapes");
    return;
  }
  const ScalarType index_dtype = slot_mapping.scalar_type();
  if ((index_dtype != ScalarType::Long && index_dtype != ScalarType::Int) ||
      slot_mapping.dim() != 1) {
    decline(ctx, "a slot_mapping other than a 1-dim Int or Long tensor");
    return;
  }
  const int64_t tokens = slot_mapping.size(0);
  if (!accept_tensor(ctx, slot_mapping, "slot_mapping", index_dtype) ||
      !accept_entries(ctx, key, "key", key_cache, tokens) ||
      !accept_entries(ctx, value, "value", key_cache, tokens)) {
    return;
  }
  const int64_t count = key_cache.size(0) * key_cache.size(1);
  const uint64_t row_len = static_cast<uint64_t>(key_cache.size(2) * key_cache.size(3));
  if (tokens == 0) return;
  auto* slots = static_cast<int64_t*>(
      staging_memory(ctx, 2 * static_cast<size_t>(tokens) * sizeof(int64_t), "slot_mapping"));
  if (slots == nullptr || !read_slots(ctx, slot_mapping, count, slots, slots + tokens) ||
      row_len == 0) {
    return;
  }

  const size_t width = key_cache.element_size();
  const Platform device = platform();
  const KvCacheTiling tiling =
      kv_cache_tiling(static_cast<uint64_t>(tokens), row_len, static_cast<uint64_t>(count), width,
                      device.ub_bytes, device.vector_cores);
  const size_t row_bytes = row_len * width;
  const size_t pitch_bytes = tiling.split.pitch * width;
  const size_t rows = static_cast<size_t>(tokens);
  const size_t cache_rows = static_cast<size_t>(count);
  DeviceBuffer k, v, s, kc, vc, t;
  if (!k.upload_rows(ctx, key.const_data_ptr(), rows, row_bytes, pitch_bytes) ||
      !v.upload_rows(ctx, value.const_data_ptr(), rows, row_bytes, pitch_bytes) ||
      !s.upload(ctx, slots, rows * sizeof(int64_t)) ||
      !kc.upload_rows(ctx, key_cache.const_data_ptr(), cache_rows, row_bytes, pitch_bytes) ||
      !vc.upload_rows(ctx, value_cache.const_data_ptr(), cache_rows, row_bytes, pitch_bytes) ||
      !t.upload(ctx, &tiling, sizeof(tiling))) {
    return;
  }
  if (finish_launch(ctx, launch_kv_cache(static_cast<uint32_t>(width), tiling.split.block_dim,
                                         k.get(), v.get(), s.get(), kc.get(), vc.get(), t.get())) &&
      kc.download_rows(ctx, key_cache.mutable_data_ptr(), cache_rows, row_bytes, pitch_bytes)) {
    (void)vc.download_rows(ctx, value_cache.mutable_data_ptr(), cache_rows, row_bytes, pitch_bytes);
  }
}

}  // namespace kiln::ascend::native
