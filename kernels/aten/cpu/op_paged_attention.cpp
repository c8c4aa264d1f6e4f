// ATen mode: kiln::paged_attention.out with libtorch's ops: per sequence, its context gathered
// through the block table, grouped kv heads repeated, softmax in float; under the name
// custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <optional>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {
namespace {

// Checks the lengths and the block table entries they use, as the portable kernel does.
bool check_tables(KernelRuntimeContext& ctx, const at::Tensor& tables, const at::Tensor& lengths,
                  int64_t block_size, int64_t num_blocks) {
  const int64_t max_blocks = tables.size(1);
  for (int64_t s = 0; s < lengths.numel(); ++s) {
    const int64_t length = lengths.const_data_ptr<int64_t>()[s];
    KILN_KERNEL_CHECK_MSG(ctx, length >= 0 && length <= max_blocks * block_size, InvalidArgument,
                          false, "context_lens[%lld] = %lld is outside [0, %lld]",
                          static_cast<long long>(s), static_cast<long long>(length),
                          static_cast<long long>(max_blocks * block_size));
    for (int64_t b = 0; b < (length + block_size - 1) / block_size; ++b) {
      const int64_t block = tables.const_data_ptr<int64_t>()[s * max_blocks + b];
      KILN_KERNEL_CHECK_MSG(ctx, block >= 0 && block < num_blocks, InvalidArgument, false,
                            "block_tables[%lld][%lld] = %lld is not a block of the caches' %lld",
                            static_cast<long long>(s), static_cast<long long>(b),
                            static_cast<long long>(block), static_cast<long long>(num_blocks));
    }
  }
  return true;
}

}  // namespace

Tensor& paged_attention_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                            const Tensor& value_cache, const Tensor& block_tables,
                            const Tensor& context_lens, double scale,
                            const std::optional<Tensor>& alibi_slopes, Tensor& out) {
  if (!aten_kernels::check_activation(ctx, query, "query") ||
      !aten_kernels::check_rank(ctx, query, "query", 3) ||
      !aten_kernels::check_dtype(ctx, key_cache, "key_cache", query.scalar_type()) ||
      !aten_kernels::check_rank(ctx, key_cache, "key_cache", 4) ||
      !aten_kernels::check_dtype(ctx, value_cache, "value_cache", query.scalar_type()) ||
      !aten_kernels::check_index(ctx, block_tables, "block_tables", 2) ||
      !aten_kernels::check_index(ctx, context_lens, "context_lens", 1) ||
      !aten_kernels::check_rank(ctx, block_tables, "block_tables", 2, query.size(0)) ||
      !aten_kernels::check_rank(ctx, context_lens, "context_lens", 1, query.size(0))) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, value_cache.sizes() == key_cache.sizes(), InvalidArgument, out,
                        "value_cache has shape %s but key_cache has shape %s",
                        c10::str(value_cache.sizes()).c_str(), c10::str(key_cache.sizes()).c_str());
  const int64_t heads = query.size(1);
  const int64_t block_size = key_cache.size(1);
  const int64_t kv_heads = key_cache.size(2);
  KILN_KERNEL_CHECK_MSG(ctx, key_cache.size(3) == query.size(2), InvalidArgument, out,
                        "query has head_size %lld but key_cache has shape %s",
                        static_cast<long long>(query.size(2)), c10::str(key_cache.sizes()).c_str());
  KILN_KERNEL_CHECK_MSG(ctx, block_size > 0, InvalidArgument, out,
                        "key_cache has shape %s: its block_size (dim 1) must be positive",
                        c10::str(key_cache.sizes()).c_str());
  KILN_KERNEL_CHECK_MSG(ctx, kv_heads > 0 && heads % kv_heads == 0, InvalidArgument, out,
                        "query has %lld heads, not a multiple of the caches' %lld kv heads",
                        static_cast<long long>(heads), static_cast<long long>(kv_heads));
  if (alibi_slopes.has_value() &&
      (!aten_kernels::check_dtype(ctx, *alibi_slopes, "alibi_slopes", c10::kFloat) ||
       !aten_kernels::check_rank(ctx, *alibi_slopes, "alibi_slopes", 1, heads))) {
    return out;
  }
  const at::Tensor tables = block_tables.to(at::kLong).contiguous();
  const at::Tensor lengths = context_lens.to(at::kLong).contiguous();
  if (!check_tables(ctx, tables, lengths, block_size, key_cache.size(0))) return out;
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
