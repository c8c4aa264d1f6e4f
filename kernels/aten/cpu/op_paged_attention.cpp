// ATen mode: kiln::paged_attention.out with libtorch's ops: per sequence, its context gathered
// through the block table, grouped kv heads repeated, softmax in float; under the name
// custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <optional>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {
Tensor& paged_attention_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                            const Tensor& value_cache, const Tensor& block_tables,
                            const Tensor& context_lens, double scale,
                            const std::optional<Tensor>& alibi_slopes, Tensor& out) {
  if (!check_paged_attention_arguments(ctx, query, key_cache, value_cache, block_tables,
                                       context_lens, alibi_slopes)) {
    return out;
  }
  const int64_t heads = query.size(1);
  const int64_t block_size = key_cache.size(1);
  const int64_t kv_heads = key_cache.size(2);
  const at::Tensor tables = block_tables.to(at::kLong);
  const at::Tensor lengths = context_lens.to(at::kLong);
  at::Tensor result;
  if (!aten_kernels::run_aten(ctx, [&] {
        result = at::zeros(query.sizes(), query.options().dtype(at::kFloat));
        for (int64_t s = 0; s < query.size(0); ++s) {
          const int64_t length = lengths.const_data_ptr<int64_t>()[s];
          if (length == 0) continue;
          const at::Tensor tokens = at::arange(length, tables.options());
          const at::Tensor blocks = tables[s].index_select(0, tokens.div(block_size, "floor"));
          const at::Tensor offsets = tokens.remainder(block_size);
          const at::Tensor keys = key_cache.index({blocks, offsets})
                                      .to(at::kFloat)
                                      .repeat_interleave(heads / kv_heads, 1);
          const at::Tensor values = value_cache.index({blocks, offsets})
                                        .to(at::kFloat)
                                        .repeat_interleave(heads / kv_heads, 1);
          at::Tensor logits = at::einsum("hd,lhd->hl", {query[s].to(at::kFloat), keys}) * scale;
          if (alibi_slopes.has_value()) {
            logits = logits + alibi_slopes->unsqueeze(1) * (tokens - length + 1).to(at::kFloat);
          }
          result[s].copy_(at::einsum("hl,lhd->hd", {logits.softmax(-1), values}));
        }
        result = result.to(query.scalar_type());
      })) {
    return out;
  }
  aten_kernels::store(ctx, result, out);
  return out;
}

}  // namespace kiln::portable::native
