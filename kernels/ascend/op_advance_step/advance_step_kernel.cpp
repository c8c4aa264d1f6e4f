// Ascend C kernel of advance_step_flashattn: index arithmetic on the scalar unit. A core takes a
// run of sequences (whole 32-byte blocks of every tensor), a tile at a time: MTE2 brings the
// lengths and sampled tokens into UB, the scalar unit computes each sequence's token, position,
// new length and slot (looking its block up in block_tables in GM), and MTE3 writes them out.
// Sequences from num_queries on are padding: token 0, position 0, slot -1, length unchanged.
// The host has checked every lookup, so no read leaves block_tables.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/op_advance_step/advance_step_kernels.h"
#include "kernels/ascend/op_advance_step/advance_step_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

// `Table` is the block tables' dtype (vLLM's Int).
template <typename Table>
class AdvanceStepKernel {
 public:
  __aicore__ inline void Init(GM_ADDR sampled, GM_ADDR lengths, GM_ADDR tables, GM_ADDR tokens_out,
                              GM_ADDR positions_out, GM_ADDR lengths_out, GM_ADDR slots_out,
                              const AdvanceStepTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.num_seqs, t_.block_seqs);
    first_ = range.start;
    count_ = range.length;
    if (count_ == 0) return;
    sampled_.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(sampled), t_.num_seqs);
    lengths_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(lengths), t_.num_seqs);
    tables_.SetGlobalBuffer(reinterpret_cast<__gm__ Table*>(tables), t_.table_elems);
    tokens_out_.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(tokens_out), t_.num_seqs);
    positions_out_.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(positions_out), t_.num_seqs);
    lengths_out_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(lengths_out), t_.num_seqs);
    slots_out_.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(slots_out), t_.num_seqs);
    pipe_.InitBuffer(in32_, t_.tile_seqs * sizeof(int32_t));
    pipe_.InitBuffer(in64_, t_.tile_seqs * sizeof(int64_t));
    pipe_.InitBuffer(out32_, t_.tile_seqs * sizeof(int32_t));
    pipe_.InitBuffer(out64_, 3 * t_.tile_seqs * sizeof(int64_t));
  }

  __aicore__ inline void Process() {
    for (uint64_t done = 0; done < count_; done += t_.tile_seqs) {
      const uint32_t n = static_cast<uint32_t>(
          count_ - done < t_.tile_seqs ? count_ - done : uint64_t{t_.tile_seqs});
      Tile(first_ + done, n);
    }
  }

 private:
  // Sequences [seq, seq + n), n a multiple of 8.
  __aicore__ inline void Tile(uint64_t seq, uint32_t n) {
    LocalTensor<int32_t> lengths = in32_.Get<int32_t>();
    LocalTensor<int64_t> sampled = in64_.Get<int64_t>();
    LocalTensor<int32_t> new_lengths = out32_.Get<int32_t>();
    LocalTensor<int64_t> outs = out64_.Get<int64_t>();
    DataCopy(lengths, lengths_[seq], n);
    DataCopy(sampled, sampled_[seq], n);
    // The scalar unit reads what MTE2 brought and overwrites what MTE3 copied out last tile.
    wait_pipe<HardEvent::MTE2_S>();
    wait_pipe<HardEvent::MTE3_S>();
    const uint32_t tp = t_.tile_seqs;  // outs: tokens, positions, slots, one tile each
    for (uint32_t i = 0; i < n; ++i) {
      const int64_t length = lengths.GetValue(i);
      if (seq + i < t_.num_queries) {
        const int64_t block = static_cast<int64_t>(
            tables_.GetValue((seq + i) * t_.max_blocks + length / t_.block_size));
        outs.SetValue(i, sampled.GetValue(i));
        outs.SetValue(tp + i, length);
        outs.SetValue(2 * tp + i, block * t_.block_size + length % t_.block_size);
        new_lengths.SetValue(i, static_cast<int32_t>(length + 1));
      } else {
        outs.SetValue(i, 0);
        outs.SetValue(tp + i, 0);
        outs.SetValue(2 * tp + i, -1);
        new_lengths.SetValue(i, static_cast<int32_t>(length));
      }
    }
    // MTE3 copies out what the scalar unit wrote; MTE2 refills the inputs after its reads.
    wait_pipe<HardEvent::S_MTE3>();
    wait_pipe<HardEvent::S_MTE2>();
    DataCopy(tokens_out_[seq], outs, n);
    DataCopy(positions_out_[seq], outs[tp], n);
    DataCopy(slots_out_[seq], outs[2 * tp], n);
    DataCopy(lengths_out_[seq], new_lengths, n);
  }

  TPipe pipe_;
  TBuf<TPosition::VECCALC> in32_;
  TBuf<TPosition::VECCALC> in64_;
  TBuf<TPosition::VECCALC> out32_;
  TBuf<TPosition::VECCALC> out64_;
  GlobalTensor<int64_t> sampled_;
  GlobalTensor<int32_t> lengths_;
  GlobalTensor<Table> tables_;
  GlobalTensor<int64_t> tokens_out_;
  GlobalTensor<int64_t> positions_out_;
  GlobalTensor<int32_t> lengths_out_;
  GlobalTensor<int64_t> slots_out_;
  AdvanceStepTiling t_;
  uint64_t first_ = 0;
  uint64_t count_ = 0;
};

template <typename Table>
__aicore__ inline void run_advance_step(GM_ADDR sampled, GM_ADDR lengths, GM_ADDR tables,
                                        GM_ADDR tokens_out, GM_ADDR positions_out,
                                        GM_ADDR lengths_out, GM_ADDR slots_out, GM_ADDR tiling) {
  run_kernel<AdvanceStepKernel<Table>>(load_tiling<AdvanceStepTiling>(tiling), sampled, lengths,
                                       tables, tokens_out, positions_out, lengths_out, slots_out);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_ADVANCE_STEP_RUN kiln::ascend::run_advance_step
KILN_ASCEND_DEFINE_KERNELS(KILN_ADVANCE_STEP)
