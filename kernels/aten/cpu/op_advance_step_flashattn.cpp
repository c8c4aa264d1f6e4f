// ATen mode: kiln::advance_step_flashattn on libtorch's tensors (vLLM's step advance, checked
// before anything is written), under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

void advance_step_flashattn(KernelRuntimeContext& ctx, int64_t num_seqs, int64_t num_queries,
                            int64_t block_size, Tensor& input_tokens,
                            const Tensor& sampled_token_ids, Tensor& input_positions,
                            Tensor& seq_lens, Tensor& slot_mapping, const Tensor& block_tables) {
  KILN_KERNEL_CHECK_MSG(ctx, num_queries >= 0 && num_queries <= num_seqs, InvalidArgument, ,
                        "num_queries %lld must be in [0, num_seqs = %lld]",
                        static_cast<long long>(num_queries), static_cast<long long>(num_seqs));
  KILN_KERNEL_CHECK_MSG(ctx, block_size > 0, InvalidArgument, ,
                        "block_size must be positive, but is %lld",
                        static_cast<long long>(block_size));
  if (!aten_kernels::check_dtype(ctx, input_tokens, "input_tokens", c10::kLong) ||
      !aten_kernels::check_dtype(ctx, input_positions, "input_positions", c10::kLong) ||
      !aten_kernels::check_dtype(ctx, seq_lens, "seq_lens", c10::kInt) ||
      !aten_kernels::check_dtype(ctx, slot_mapping, "slot_mapping", c10::kLong) ||
      !aten_kernels::check_dtype(ctx, block_tables, "block_tables", c10::kInt) ||
      !aten_kernels::check_dtype(ctx, sampled_token_ids, "sampled_token_ids", c10::kLong) ||
      !aten_kernels::check_rank(ctx, input_tokens, "input_tokens", 1, num_seqs) ||
      !aten_kernels::check_rank(ctx, input_positions, "input_positions", 1, num_seqs) ||
      !aten_kernels::check_rank(ctx, seq_lens, "seq_lens", 1, num_seqs) ||
      !aten_kernels::check_rank(ctx, slot_mapping, "slot_mapping", 1, num_seqs) ||
      !aten_kernels::check_rank(ctx, block_tables, "block_tables", 2, num_seqs)) {
    return;
  }
  KILN_KERNEL_CHECK_MSG(
      ctx,
      sampled_token_ids.numel() == num_queries && sampled_token_ids.size(0) == num_queries &&
          sampled_token_ids.dim() <= 2,
      InvalidArgument, , "sampled_token_ids has shape %s; pass [%lld, 1]",
      c10::str(sampled_token_ids.sizes()).c_str(), static_cast<long long>(num_queries));
  const int64_t max_blocks = block_tables.size(1);
  const at::Tensor tables = block_tables.contiguous();
  const int32_t* table = tables.const_data_ptr<int32_t>();
  for (int64_t i = 0; i < num_queries; ++i) {
    const int64_t position = seq_lens[i].item<int32_t>();
    KILN_KERNEL_CHECK_MSG(
        ctx, position >= 0 && position / block_size < max_blocks, InvalidArgument, ,
        "seq_lens[%lld] = %lld: the next position needs "
        "block %lld, past block_tables' %lld blocks per sequence",
        static_cast<long long>(i), static_cast<long long>(position),
        static_cast<long long>(position / block_size), static_cast<long long>(max_blocks));
    const int64_t block = table[i * max_blocks + position / block_size];
    KILN_KERNEL_CHECK_MSG(ctx, block >= 0, InvalidArgument, ,
                          "block_tables[%lld][%lld] = %lld is not a block",
                          static_cast<long long>(i), static_cast<long long>(position / block_size),
                          static_cast<long long>(block));
  }
  aten_kernels::run_aten(ctx, [&] {
    const at::Tensor positions = seq_lens.narrow(0, 0, num_queries).to(at::kLong);
    const at::Tensor rows = at::arange(num_queries, positions.options());
    const at::Tensor blocks =
        tables.to(at::kLong).index({rows, positions.div(block_size, "floor")});
    input_tokens.narrow(0, 0, num_queries).copy_(sampled_token_ids.reshape(-1));
    input_positions.narrow(0, 0, num_queries).copy_(positions);
    slot_mapping.narrow(0, 0, num_queries)
        .copy_(blocks * block_size + positions.remainder(block_size));
    seq_lens.narrow(0, 0, num_queries).add_(1);
    input_tokens.narrow(0, num_queries, num_seqs - num_queries).fill_(0);
    input_positions.narrow(0, num_queries, num_seqs - num_queries).fill_(0);
    slot_mapping.narrow(0, num_queries, num_seqs - num_queries).fill_(-1);
  });
}

}  // namespace kiln::portable::native
