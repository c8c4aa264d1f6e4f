// ATen mode: kiln::reshape_and_cache with libtorch's ops (index_put_ into the caches viewed as
// [slots, num_kv_heads, head_size]; negative slots skipped), under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {
namespace {

bool check_entries(KernelRuntimeContext& ctx, const Tensor& x, const char* name,
                   const Tensor& cache, int64_t tokens) {
  if (!aten_kernels::check_dtype(ctx, x, name, cache.scalar_type())) return false;
  const int64_t heads = cache.size(2);
  const int64_t head_size = cache.size(3);
  const bool split = x.dim() == 3 && x.size(1) == heads && x.size(2) == head_size;
  const bool flat = x.dim() == 2 && x.size(1) == heads * head_size;
  KILN_KERNEL_CHECK_MSG(ctx, (split || flat) && x.size(0) == tokens, InvalidArgument, false,
                        "%s has shape %s; pass [%lld, %lld, %lld]", name,
                        c10::str(x.sizes()).c_str(), static_cast<long long>(tokens),
                        static_cast<long long>(heads), static_cast<long long>(head_size));
  return true;
}

}  // namespace

void reshape_and_cache(KernelRuntimeContext& ctx, const Tensor& key, const Tensor& value,
                       Tensor& key_cache, Tensor& value_cache, const Tensor& slot_mapping) {
  if (!aten_kernels::check_activation(ctx, key_cache, "key_cache") ||
      !aten_kernels::check_rank(ctx, key_cache, "key_cache", 4) ||
      !aten_kernels::check_dtype(ctx, value_cache, "value_cache", key_cache.scalar_type()) ||
      !aten_kernels::check_index(ctx, slot_mapping, "slot_mapping", 1)) {
    return;
  }
  KILN_KERNEL_CHECK_MSG(ctx, value_cache.sizes() == key_cache.sizes(), InvalidArgument, ,
                        "value_cache has shape %s but key_cache has shape %s",
                        c10::str(value_cache.sizes()).c_str(), c10::str(key_cache.sizes()).c_str());
  const int64_t tokens = slot_mapping.size(0);
  if (!check_entries(ctx, key, "key", key_cache, tokens) ||
      !check_entries(ctx, value, "value", key_cache, tokens)) {
    return;
  }
  const int64_t slots = key_cache.size(0) * key_cache.size(1);
  const at::Tensor mapping = slot_mapping.to(at::kLong).contiguous();
  const int64_t* s = mapping.const_data_ptr<int64_t>();
  for (int64_t t = 0; t < tokens; ++t) {
    KILN_KERNEL_CHECK_MSG(ctx, s[t] < slots, InvalidArgument, ,
                          "slot_mapping[%lld] = %lld is past the caches' %lld slots",
                          static_cast<long long>(t), static_cast<long long>(s[t]),
                          static_cast<long long>(slots));
  }
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
