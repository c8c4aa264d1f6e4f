// kiln::paged_attention.out and kiln::paged_attention.paged_layout_out: one decode step of
// attention over a paged KV cache (vLLM's paged_attention_v1 and v2). Sequence s attends with
// query[s] [num_heads, head_size] to its first context_lens[s] cached tokens: token j lives in
// block block_tables[s][j / block_size] at offset j % block_size of the caches, in the flash
// layout ([num_blocks, block_size, num_kv_heads, head_size]) for .out and in vLLM's paged layout
// (key_cache [num_blocks, num_kv_heads, head_size / x, block_size, x], value_cache [num_blocks,
// num_kv_heads, head_size, block_size]) for .paged_layout_out. Query head h reads kv head
// h / (num_heads / num_kv_heads) (grouped-query attention). Logits are scale * q.k
// (+ alibi_slopes[h] * (j - context_len + 1)); the softmax and the weighted sum run in float,
// contexts longer than 512 tokens in partitions combined as vLLM's v2 does
// (util/llm/paged_attention.cpp); a sequence with no context gets zeros. query and out may be
// row views (sequences any stride apart).
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/attention.h"
#include "kernels/portable/cpu/util/llm/paged_attention.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

Tensor& attend_paged(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                     const Tensor& value_cache, const Tensor& block_tables,
                     const Tensor& context_lens, double scale,
                     const std::optional<Tensor>& alibi_slopes, CacheLayout layout, Tensor& out) {
  CacheGeometry g{};
  if (!check_paged_attention_arguments(ctx, query, key_cache, value_cache, block_tables,
                                       context_lens, alibi_slopes, layout, &g) ||
      !check_attention_head_size(ctx, g.head_size) || !check_tensor(ctx, out, "out") ||
      !check_out_dtype_is(ctx, out, query.scalar_type()) ||
      !resize_or_fail(ctx, out, query.sizes()) ||
      !check_row_activation(ctx, out, "out", /*is_out=*/true)) {
    return out;
  }
  paged_attention(ctx, query, key_cache, value_cache, block_tables, context_lens,
                  static_cast<float>(scale), alibi_slopes, g, out);
  return out;
}

}  // namespace

Tensor& paged_attention_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                            const Tensor& value_cache, const Tensor& block_tables,
                            const Tensor& context_lens, double scale,
                            const std::optional<Tensor>& alibi_slopes, Tensor& out) {
  return attend_paged(ctx, query, key_cache, value_cache, block_tables, context_lens, scale,
                      alibi_slopes, CacheLayout::kFlash, out);
}

Tensor& paged_attention_paged_layout_out(KernelRuntimeContext& ctx, const Tensor& query,
                                         const Tensor& key_cache, const Tensor& value_cache,
                                         const Tensor& block_tables, const Tensor& context_lens,
                                         double scale, const std::optional<Tensor>& alibi_slopes,
                                         Tensor& out) {
  return attend_paged(ctx, query, key_cache, value_cache, block_tables, context_lens, scale,
                      alibi_slopes, CacheLayout::kPaged, out);
}

}  // namespace kiln::portable::native
