// ATen mode: kiln::reshape_and_cache with libtorch's ops (index_put_ into the caches viewed as
// [slots, num_kv_heads, head_size]; negative slots skipped), under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

void reshape_and_cache(KernelRuntimeContext& ctx, const Tensor& key, const Tensor& value,
                       Tensor& key_cache, Tensor& value_cache, const Tensor& slot_mapping) {
  if (!check_reshape_and_cache_arguments(ctx, key, value, key_cache, value_cache, slot_mapping)) {
    return;
  }
  const int64_t tokens = slot_mapping.size(0);
  const int64_t slots = key_cache.size(0) * key_cache.size(1);
  const at::Tensor mapping = slot_mapping.to(at::kLong);
  aten_kernels::run_aten(ctx, [&] {
    const at::Tensor keep = mapping.ge(0);
    const at::Tensor targets = mapping.masked_select(keep);
    const int64_t heads = key_cache.size(2);
    const int64_t head_size = key_cache.size(3);
    key_cache.view({slots, heads, head_size})
        .index_put_({targets}, key.reshape({tokens, heads, head_size}).index({keep}));
    value_cache.view({slots, heads, head_size})
        .index_put_({targets}, value.reshape({tokens, heads, head_size}).index({keep}));
  });
}

}  // namespace kiln::portable::native
