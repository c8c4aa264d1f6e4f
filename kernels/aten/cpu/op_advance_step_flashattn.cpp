// ATen mode: kiln::advance_step_flashattn on libtorch's tensors (vLLM's step advance, checked
// before anything is written), under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

void advance_step_flashattn(KernelRuntimeContext& ctx, int64_t num_seqs, int64_t num_queries,
                            int64_t block_size, Tensor& input_tokens,
                            const Tensor& sampled_token_ids, Tensor& input_positions,
                            Tensor& seq_lens, Tensor& slot_mapping, const Tensor& block_tables) {
  if (!check_advance_step_arguments(ctx, num_seqs, num_queries, block_size, input_tokens,
                                    sampled_token_ids, input_positions, seq_lens, slot_mapping,
                                    block_tables)) {
    return;
  }
  aten_kernels::run_aten(ctx, [&] {
    const at::Tensor positions = seq_lens.narrow(0, 0, num_queries).to(at::kLong);
    const at::Tensor rows = at::arange(num_queries, positions.options());
    const at::Tensor blocks =
        block_tables.to(at::kLong).index({rows, positions.div(block_size, "floor")});
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
