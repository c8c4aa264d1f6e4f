// kiln::reshape_and_cache: writes this step's keys and values into a paged KV cache (vLLM's
// reshape_and_cache_flash layout). Token t goes to slot s = slot_mapping[t], that is block
// s / block_size, offset s % block_size, of key_cache and value_cache, both
// [num_blocks, block_size, num_kv_heads, head_size]; a negative slot is padding and skipped.
// Every slot is checked before anything is written.
#include <cstring>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// key or value: [num_tokens, num_kv_heads, head_size] or [num_tokens, num_kv_heads * head_size],
// of the caches' dtype.
bool check_entries(KernelRuntimeContext& ctx, const Tensor& t, const char* name,
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
                        name, format_shape(t.sizes()).text, static_cast<long long>(tokens),
                        format_shape(cache.sizes()).text, static_cast<long long>(tokens),
                        static_cast<long long>(heads), static_cast<long long>(head_size));
  return true;
}

}  // namespace

void reshape_and_cache(KernelRuntimeContext& ctx, const Tensor& key, const Tensor& value,
                       Tensor& key_cache, Tensor& value_cache, const Tensor& slot_mapping) {
  if (!check_activation(ctx, key_cache, "key_cache") ||
      !check_rank(ctx, key_cache, "key_cache", 4) ||
      !check_activation(ctx, value_cache, "value_cache") ||
      !check_rank(ctx, value_cache, "value_cache", 4) ||
      !check_dtype_matches(ctx, value_cache, "value_cache", key_cache.scalar_type(), "key_cache") ||
      !check_index_tensor(ctx, slot_mapping, "slot_mapping", 1)) {
    return;
  }
  KILN_KERNEL_CHECK_MSG(ctx, value_cache.sizes().equals(key_cache.sizes()), InvalidArgument, ,
                        "value_cache has shape %s but key_cache has shape %s; pass caches of one "
                        "shape [num_blocks, block_size, num_kv_heads, head_size]",
                        format_shape(value_cache.sizes()).text,
                        format_shape(key_cache.sizes()).text);
  const int64_t tokens = slot_mapping.size(0);
  if (!check_entries(ctx, key, "key", key_cache, tokens) ||
      !check_entries(ctx, value, "value", key_cache, tokens)) {
    return;
  }
  const int64_t slots = key_cache.size(0) * key_cache.size(1);
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t slot = index_at(slot_mapping, t);
    KILN_KERNEL_CHECK_MSG(ctx, slot < slots, InvalidArgument, ,
                          "slot_mapping[%lld] = %lld is past the caches' %lld slots "
                          "(num_blocks * block_size)",
                          static_cast<long long>(t), static_cast<long long>(slot),
                          static_cast<long long>(slots));
  }
  const size_t row_bytes = key_cache.size(2) * key_cache.size(3) * key_cache.element_size();
  const char* k = static_cast<const char*>(key.const_data_ptr());
  const char* v = static_cast<const char*>(value.const_data_ptr());
  char* kc = static_cast<char*>(key_cache.mutable_data_ptr());
  char* vc = static_cast<char*>(value_cache.mutable_data_ptr());
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t slot = index_at(slot_mapping, t);
    if (slot < 0) continue;  // padding
    std::memmove(kc + slot * row_bytes, k + t * row_bytes, row_bytes);
    std::memmove(vc + slot * row_bytes, v + t * row_bytes, row_bytes);
  }
}

}  // namespace kiln::portable::native
