// kiln::advance_step_flashattn: vLLM's step advance for multi-step decoding with the flash
// attention layout. For each of the first num_queries sequences: the sampled token becomes its
// next input token, its length grows by one, its next position is the old length, and its next
// slot is block_tables[i][pos / block_size] * block_size + pos % block_size. Sequences
// num_queries .. num_seqs - 1 are padding (CUDA-graph batches): token 0, position 0, slot -1.
// Every lookup is checked before anything is written.
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "runtime/kernel/kernel_runtime_context.h"

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
  // vLLM's dtypes: Long tokens, positions and slots; Int lengths and block tables.
  if (!check_index_dtype(ctx, input_tokens, "input_tokens", ScalarType::Long, 1) ||
      !check_index_dtype(ctx, input_positions, "input_positions", ScalarType::Long, 1) ||
      !check_index_dtype(ctx, seq_lens, "seq_lens", ScalarType::Int, 1) ||
      !check_index_dtype(ctx, slot_mapping, "slot_mapping", ScalarType::Long, 1) ||
      !check_index_dtype(ctx, block_tables, "block_tables", ScalarType::Int, 2) ||
      !check_size(ctx, input_tokens, "input_tokens", 0, num_seqs, "num_seqs") ||
      !check_size(ctx, input_positions, "input_positions", 0, num_seqs, "num_seqs") ||
      !check_size(ctx, seq_lens, "seq_lens", 0, num_seqs, "num_seqs") ||
      !check_size(ctx, slot_mapping, "slot_mapping", 0, num_seqs, "num_seqs") ||
      !check_size(ctx, block_tables, "block_tables", 0, num_seqs, "num_seqs")) {
    return;
  }
  KILN_KERNEL_CHECK_MSG(
      ctx,
      sampled_token_ids.scalar_type() == ScalarType::Long &&
          (sampled_token_ids.dim() == 1 ||
           (sampled_token_ids.dim() == 2 && sampled_token_ids.size(1) == 1)) &&
          sampled_token_ids.size(0) == num_queries,
      InvalidArgument, ,
      "sampled_token_ids has dtype %s and shape %s; pass a Long tensor of shape [%lld, 1] "
      "(num_queries)",
      to_string(sampled_token_ids.scalar_type()), format_shape(sampled_token_ids.sizes()).text,
      static_cast<long long>(num_queries));
  const int64_t max_blocks = block_tables.size(1);
  const int32_t* tables = block_tables.const_data_ptr<int32_t>();
  int32_t* lengths = seq_lens.mutable_data_ptr<int32_t>();
  for (int64_t i = 0; i < num_queries; ++i) {
    const int64_t position = lengths[i];  // the new token's position is the old length
    KILN_KERNEL_CHECK_MSG(
        ctx, position >= 0 && position / block_size < max_blocks, InvalidArgument, ,
        "seq_lens[%lld] = %lld: the next position needs block %lld, past "
        "block_tables' %lld blocks per sequence",
        static_cast<long long>(i), static_cast<long long>(position),
        static_cast<long long>(position / block_size), static_cast<long long>(max_blocks));
    const int64_t block = tables[i * max_blocks + position / block_size];
    KILN_KERNEL_CHECK_MSG(ctx, block >= 0, InvalidArgument, ,
                          "block_tables[%lld][%lld] = %lld is not a block",
                          static_cast<long long>(i), static_cast<long long>(position / block_size),
                          static_cast<long long>(block));
  }
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
