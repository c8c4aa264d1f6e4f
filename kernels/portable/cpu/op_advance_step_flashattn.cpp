// kiln::advance_step_flashattn: vLLM's step advance for multi-step decoding with the flash
// attention layout. For each of the first num_queries sequences: the sampled token becomes its
// next input token, its length grows by one, its next position is the old length, and its next
// slot is block_tables[i][pos / block_size] * block_size + pos % block_size. Sequences
// num_queries .. num_seqs - 1 are padding (CUDA-graph batches): token 0, position 0, slot -1.
// Every lookup is checked before anything is written.
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "runtime/kernel/kernel_runtime_context.h"

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
  const int64_t max_blocks = block_tables.size(1);
  const int32_t* tables = block_tables.const_data_ptr<int32_t>();
  int32_t* lengths = seq_lens.mutable_data_ptr<int32_t>();
  int64_t* tokens = input_tokens.mutable_data_ptr<int64_t>();
  int64_t* positions = input_positions.mutable_data_ptr<int64_t>();
  int64_t* slots = slot_mapping.mutable_data_ptr<int64_t>();
  const int64_t* sampled = sampled_token_ids.const_data_ptr<int64_t>();
  for (int64_t i = 0; i < num_queries; ++i) {
    const int64_t position = lengths[i];
    tokens[i] = sampled[i];
    lengths[i] = static_cast<int32_t>(position + 1);
    positions[i] = position;
    slots[i] = tables[i * max_blocks + position / block_size] * block_size + position % block_size;
  }
  for (int64_t i = num_queries; i < num_seqs; ++i) {
    tokens[i] = 0;
    positions[i] = 0;
    slots[i] = -1;
  }
}

}  // namespace kiln::portable::native
