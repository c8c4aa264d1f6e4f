// Host wrapper of kiln::reshape_and_cache on Ascend: the caches go to device memory, the kernel
// writes each token's rows into its slot, and the caches come back. The wrapper takes only the
// inputs the portable kernel accepts; anything else declines, and the portable kernel reports it
// (a slot past the caches among them, so a refused call writes nothing).
#include <cstdint>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_kv_cache/kv_cache_write.h"

namespace kiln::ascend {
namespace {

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

// slot_mapping as int64 in `slots`, declining a slot past the caches' `count`; then only the
// last of tokens that share a slot keeps it (keep_last_writes). `order` is scratch for as many
// tokens.
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
  }
  keep_last_writes(slots, order, tokens);
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

  DeviceBuffer kc, vc;
  if (!upload_cache(ctx, key_cache, row_len, kc) || !upload_cache(ctx, value_cache, row_len, vc) ||
      !write_cache_rows(ctx, key.const_data_ptr(), value.const_data_ptr(), slots,
                        static_cast<uint64_t>(tokens), row_len, key_cache.element_size(), kc.get(),
                        vc.get(), static_cast<uint64_t>(count)) ||
      !download_cache(ctx, kc, row_len, key_cache)) {
    return;
  }
  (void)download_cache(ctx, vc, row_len, value_cache);
}

}  // namespace kiln::ascend::native
