// kiln::reshape_and_cache: writes this step's keys and values into a paged KV cache (vLLM's
// reshape_and_cache_flash layout). Token t goes to slot s = slot_mapping[t], that is block
// s / block_size, offset s % block_size, of key_cache and value_cache, both
// [num_blocks, block_size, num_kv_heads, head_size]; a negative slot is padding and skipped.
// Every slot is checked before anything is written.
#include <cstring>

#include "kernels/portable/cpu/util/llm/arguments.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
void reshape_and_cache(KernelRuntimeContext& ctx, const Tensor& key, const Tensor& value,
                       Tensor& key_cache, Tensor& value_cache, const Tensor& slot_mapping) {
  if (!check_reshape_and_cache_arguments(ctx, key, value, key_cache, value_cache, slot_mapping)) {
    return;
  }
  const int64_t tokens = slot_mapping.size(0);
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
