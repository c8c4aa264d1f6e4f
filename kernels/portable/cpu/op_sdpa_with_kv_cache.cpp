// llama::sdpa_with_kv_cache.out: writes this step's key and value (seq_len positions) into
// key_cache and value_cache at start_pos, then runs llama::custom_sdpa of query over the caches.
// Every argument is checked before a cache is written.
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/llm/attention.h"
#include "kernels/portable/cpu/util/llm/llama_arguments.h"
#include "kernels/portable/cpu/util/llm/sdpa.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
Tensor& sdpa_with_kv_cache_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                               const Tensor& value, Tensor& key_cache, Tensor& value_cache,
                               int64_t start_pos, int64_t seq_len,
                               const std::optional<Tensor>& attn_mask, double drpout_p,
                               bool is_causal, std::optional<double> scale, Tensor& out) {
  if (!check_sdpa_with_kv_cache_arguments(ctx, query, key, value, key_cache, value_cache, start_pos,
                                          seq_len, attn_mask, drpout_p, is_causal) ||
      !check_attention_head_size(ctx, query.size(3)) || !check_tensor(ctx, out, "out") ||
      !check_out_dtype_is(ctx, out, query.scalar_type()) ||
      !resize_or_fail(ctx, out, query.sizes())) {
    return out;
  }
  write_cache_rows(key, key_cache, start_pos);
  write_cache_rows(value, value_cache, start_pos);
  run_custom_sdpa(ctx, query, key_cache, value_cache, start_pos, attn_mask, is_causal,
                  attention_scale(scale, query.size(3)), out);
  return out;
}

}  // namespace kiln::portable::native
