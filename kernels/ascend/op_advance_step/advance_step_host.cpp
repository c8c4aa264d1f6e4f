// Host wrapper of kiln::advance_step_flashattn on Ascend. It takes vLLM's dtypes and shapes and
// checks every block lookup first; anything else declines, and the portable kernel reports it
// (so a refused call writes nothing). The state goes to device memory padded to whole 32-byte
// blocks, the kernel computes the next step, and the state comes back.
#include <cstdint>
#include <cstring>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_advance_step/advance_step_kernels.h"
#include "kernels/ascend/op_advance_step/advance_step_tiling.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_ADVANCE_STEP)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_ADVANCE_STEP, launch_advance_step, uint32_t, "advance_step")

// A contiguous `dtype` tensor of `rank` dims with `rows` rows.
bool accept_state(KernelRuntimeContext& ctx, const Tensor& t, const char* name, ScalarType dtype,
                  int64_t rank, int64_t rows) {
  if (t.scalar_type() != dtype || t.dim() != rank || t.size(0) != rows) {
    return decline(ctx, "%s of dtype %s and another shape", name, to_string(t.scalar_type()));
  }
  return accept_tensor(ctx, t, name, dtype);
}

// Every advancing sequence's next position has a block in block_tables, and that block is not
// negative (what the portable kernel checks before writing).
bool accept_lookups(KernelRuntimeContext& ctx, const Tensor& seq_lens, const Tensor& block_tables,
                    int64_t num_queries, int64_t block_size) {
  const int64_t max_blocks = block_tables.size(1);
  const int32_t* lengths = seq_lens.const_data_ptr<int32_t>();
  const int32_t* tables = block_tables.const_data_ptr<int32_t>();
  for (int64_t i = 0; i < num_queries; ++i) {
    const int64_t position = lengths[i];
    if (position < 0 || position / block_size >= max_blocks ||
        tables[i * max_blocks + position / block_size] < 0) {
      return decline(ctx, "a next position without a block (sequence %lld)",
                     static_cast<long long>(i));
    }
  }
  return true;
}

// `rows` elements of `width` bytes of `host` in a zeroed device buffer of `padded` rows.
bool upload_padded(KernelRuntimeContext& ctx, DeviceBuffer& buffer, const void* host, uint64_t rows,
                   uint64_t padded, size_t width) {
  return buffer.upload(ctx, host, rows * width, padded * width);
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

void advance_step_flashattn(KernelRuntimeContext& ctx, int64_t num_seqs, int64_t num_queries,
                            int64_t block_size, Tensor& input_tokens,
                            const Tensor& sampled_token_ids, Tensor& input_positions,
                            Tensor& seq_lens, Tensor& slot_mapping, const Tensor& block_tables) {
  if (num_queries < 0 || num_queries > num_seqs || block_size <= 0) {
    decline(ctx, "num_queries %lld of %lld sequences with block_size %lld",
            static_cast<long long>(num_queries), static_cast<long long>(num_seqs),
            static_cast<long long>(block_size));
    return;
  }
  const bool sampled_ok = sampled_token_ids.dim() == 1 ||
                          (sampled_token_ids.dim() == 2 && sampled_token_ids.size(1) == 1);
  if (!accept_state(ctx, input_tokens, "input_tokens", ScalarType::Long, 1, num_seqs) ||
      !accept_state(ctx, input_positions, "input_positions", ScalarType::Long, 1, num_seqs) ||
      !accept_state(ctx, seq_lens, "seq_lens", ScalarType::Int, 1, num_seqs) ||
      !accept_state(ctx, slot_mapping, "slot_mapping", ScalarType::Long, 1, num_seqs) ||
      !accept_state(ctx, block_tables, "block_tables", ScalarType::Int, 2, num_seqs) ||
      !accept_state(ctx, sampled_token_ids, "sampled_token_ids", ScalarType::Long,
                    sampled_ok ? sampled_token_ids.dim() : -1, num_queries) ||
      !accept_lookups(ctx, seq_lens, block_tables, num_queries, block_size)) {
    return;
  }
  if (num_seqs == 0) return;
  const Platform device = platform();
  const uint64_t seqs = static_cast<uint64_t>(num_seqs);
  const AdvanceStepTiling tiling = advance_step_tiling(
      seqs, static_cast<uint64_t>(num_queries), block_size,
      static_cast<uint64_t>(block_tables.size(1)), device.ub_bytes, device.vector_cores);
  const uint64_t padded = tiling.num_seqs;
  DeviceBuffer sampled, lengths, tables, tokens, positions, new_lengths, slots, t;
  if (!upload_padded(ctx, sampled, sampled_token_ids.const_data_ptr(),
                     static_cast<uint64_t>(num_queries), padded, sizeof(int64_t)) ||
      !upload_padded(ctx, lengths, seq_lens.const_data_ptr(), seqs, padded, sizeof(int32_t)) ||
      !tables.upload(ctx, block_tables.const_data_ptr(), block_tables.nbytes()) ||
      !tokens.allocate(ctx, padded * sizeof(int64_t)) ||
      !positions.allocate(ctx, padded * sizeof(int64_t)) ||
      !new_lengths.allocate(ctx, padded * sizeof(int32_t)) ||
      !slots.allocate(ctx, padded * sizeof(int64_t)) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return;
  }
  if (!finish_launch(ctx, launch_advance_step(0u, tiling.block_dim, sampled.get(), lengths.get(),
                                              tables.get(), tokens.get(), positions.get(),
                                              new_lengths.get(), slots.get(), t.get()))) {
    return;
  }
  (void)(tokens.download(ctx, input_tokens.mutable_data_ptr(), seqs * sizeof(int64_t)) &&
         positions.download(ctx, input_positions.mutable_data_ptr(), seqs * sizeof(int64_t)) &&
         new_lengths.download(ctx, seq_lens.mutable_data_ptr(), seqs * sizeof(int32_t)) &&
         slots.download(ctx, slot_mapping.mutable_data_ptr(), seqs * sizeof(int64_t)));
}

}  // namespace kiln::ascend::native
