// llama::custom_sdpa.out, ExecuTorch's LLM attention over a KV cache (its extension/llm custom
// ops): query [B, S, H, D] at positions start_pos.. attends to key and value [B, L, H_kv, D]
// (grouped-query heads), causally (is_causal), with an additive float mask [S, L], or to the
// first start_pos + S positions. util/llm/sdpa.h gives the rule; the checks are
// llama_arguments.h's.
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/llm/attention.h"
#include "kernels/portable/cpu/util/llm/llama_arguments.h"
#include "kernels/portable/cpu/util/llm/sdpa.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
Tensor& custom_sdpa_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                        const Tensor& value, int64_t start_pos,
                        const std::optional<Tensor>& attn_mask, double drpout_p, bool is_causal,
                        std::optional<double> scale, Tensor& out) {
  if (!check_custom_sdpa_arguments(ctx, query, key, value, start_pos, attn_mask, drpout_p,
                                   is_causal) ||
      !check_attention_head_size(ctx, query.size(3)) || !check_tensor(ctx, out, "out") ||
      !check_out_dtype_is(ctx, out, query.scalar_type()) ||
      !resize_or_fail(ctx, out, query.sizes())) {
    return out;
  }
  run_custom_sdpa(ctx, query, key, value, start_pos, attn_mask, is_causal,
                  attention_scale(scale, query.size(3)), out);
  return out;
}

}  // namespace kiln::portable::native
