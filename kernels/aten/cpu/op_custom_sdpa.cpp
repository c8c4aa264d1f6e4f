// ATen mode: llama::custom_sdpa.out with libtorch's scaled_dot_product_attention, the positions
// attended and the causal rule given to it as an additive mask; under the name custom_ops.yaml
// binds. The checks are the portable kernel's (llama_arguments.h).
#include <ATen/ATen.h>

#include <optional>

#include "kernels/aten/cpu/util/llama.h"

namespace kiln::portable::native {

Tensor& custom_sdpa_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                        const Tensor& value, int64_t start_pos,
                        const std::optional<Tensor>& attn_mask, double drpout_p, bool is_causal,
                        std::optional<double> scale, Tensor& out) {
  if (!check_custom_sdpa_arguments(ctx, query, key, value, start_pos, attn_mask, drpout_p,
                                   is_causal)) {
    return out;
  }
  at::Tensor result;
  if (aten_kernels::run_aten(ctx, [&] {
        result = aten_kernels::custom_sdpa(query, key, value, start_pos, attn_mask, is_causal,
                                           attention_scale(scale, query.size(3)));
      })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
