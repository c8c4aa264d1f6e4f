// ATen mode: llama::sdpa_with_kv_cache.out: the cache writes (narrow + copy_), then
// llama::custom_sdpa over the caches with libtorch's attention; checks first, as the portable
// kernel does them.
#include <ATen/ATen.h>

#include <optional>

#include "kernels/aten/cpu/util/llama.h"

namespace kiln::portable::native {

Tensor& sdpa_with_kv_cache_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                               const Tensor& value, Tensor& key_cache, Tensor& value_cache,
                               int64_t start_pos, int64_t seq_len,
                               const std::optional<Tensor>& attn_mask, double drpout_p,
                               bool is_causal, std::optional<double> scale, Tensor& out) {
  if (!check_sdpa_with_kv_cache_arguments(ctx, query, key, value, key_cache, value_cache, start_pos,
                                          seq_len, attn_mask, drpout_p, is_causal)) {
    return out;
  }
  at::Tensor result;
  if (aten_kernels::run_aten(ctx, [&] {
        key_cache.narrow(1, start_pos, seq_len).copy_(key);
        value_cache.narrow(1, start_pos, seq_len).copy_(value);
        result = aten_kernels::custom_sdpa(query, key_cache, value_cache, start_pos, attn_mask,
                                           is_causal, attention_scale(scale, query.size(3)));
      })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
