// Ascend C max pooling kernel: for a tile of output rows, gathers each window tap from the
// staged input and keeps the element-wise maximum and the tap it came from, over
// double-buffered UB tiles (CopyIn -> Compare/Select -> CopyOut).
//
// torch's rule, tap by tap in window order: a larger value or any NaN takes over, so the last
// NaN of a window wins. The vector unit's Max does not promise NaN, so the kernel compares: a
// tap replaces the maximum where tap > maximum, and where tap != tap. Values are compared in
// float (exact for half and bfloat16) and come out unchanged. Padding taps hold -inf, which
// never takes over; the host maps a maximum left at a padding tap to torch's index.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/window_io.h"
#include "kernels/ascend/op_max_pool/max_pool_kernels.h"
#include "kernels/ascend/op_max_pool/max_pool_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;      // double buffering: tile i+1 copies in while tile i computes
constexpr uint32_t kFloatRepeat = 64;  // Compare and Select cover whole 256-byte repeats

// T: input/output storage type.
template <typename T>
class MaxPoolKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR slot, const MaxPoolTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.rows, t_.block_rows);
    first_ = range.start;
    rows_ = range.length;
    if (rows_ == 0) return;
    const uint32_t segment = t_.window.segment_pitch;
    const uint32_t tile = Rounded(t_.tile_rows * segment);
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), t_.window.staged_elems);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + first_ * segment, rows_ * segment);
    slot_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(slot) + first_ * segment,
                          rows_ * segment);
    pipe_.InitBuffer(in_, kBufferNum, tile * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, tile * sizeof(T));
    pipe_.InitBuffer(slot_out_, kBufferNum, tile * sizeof(float));
    tap_f_.Init(pipe_, tile);
    best_f_.Init(pipe_, tile);
    pipe_.InitBuffer(tap_number_, tile * sizeof(float));
    pipe_.InitBuffer(greater_, tile / 8);
    pipe_.InitBuffer(ordered_, tile / 8);
  }

  __aicore__ inline void Process() {
    for (uint64_t row = 0; row < rows_; row += t_.tile_rows) {
      const uint64_t rest = rows_ - row;
      Tile(row, static_cast<uint32_t>(rest < t_.tile_rows ? rest : t_.tile_rows));
    }
  }

 private:
  __aicore__ inline static uint32_t Rounded(uint32_t n) {
    return (n + kFloatRepeat - 1) / kFloatRepeat * kFloatRepeat;
  }

  // Output rows [row, row + n) of this core.
  __aicore__ inline void Tile(uint64_t row, uint32_t n) {
    const uint32_t count = n * t_.window.segment_pitch;
    const uint32_t lanes = Rounded(count);  // past count: stale UB, never copied out
    LocalTensor<T> y = out_.AllocTensor<T>();
    LocalTensor<float> slot = slot_out_.AllocTensor<float>();
    const LocalTensor<float> best = best_f_.View(y);
    LocalTensor<T> first = GatherTap(row, n, 0);
    Muls(best, tap_f_.View(first, lanes), 1.0f, lanes);  // exact, NaN and -0 included
    Duplicate(slot, 0.0f, lanes);
    in_.FreeTensor(first);
    LocalTensor<float> number = tap_number_.Get<float>();
    LocalTensor<uint8_t> greater = greater_.Get<uint8_t>();
    LocalTensor<uint8_t> ordered = ordered_.Get<uint8_t>();
    for (uint32_t t = 1; t < t_.taps; ++t) {
      LocalTensor<T> tap_t = GatherTap(row, n, t);
      const LocalTensor<float> tap = tap_f_.View(tap_t, lanes);
      PipeBarrier<PIPE_V>();
      Compare(greater, tap, best, CMPMODE::GT, lanes);
      Compare(ordered, tap, tap, CMPMODE::EQ, lanes);  // false only where the tap is NaN
      Duplicate(number, static_cast<float>(t), lanes);
      PipeBarrier<PIPE_V>();
      Select(best, greater, tap, best, SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
      Select(slot, greater, number, slot, SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
      PipeBarrier<PIPE_V>();
      Select(best, ordered, best, tap, SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
      Select(slot, ordered, slot, number, SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
      in_.FreeTensor(tap_t);
    }
    best_f_.Emit(out_, y, lanes);
    slot_out_.EnQue(slot);
    const uint64_t at = row * t_.window.segment_pitch;
    copy_out(y_[at], out_, count);
    copy_out(slot_[at], slot_out_, count);
  }

  // Tap `tap` of this core's output rows [row, row + n), in UB for the vector unit.
  __aicore__ inline LocalTensor<T> GatherTap(uint64_t row, uint32_t n, uint32_t tap) {
    LocalTensor<T> tile = in_.AllocTensor<T>();
    copy_tap_runs(tile, x_, t_.window, 0, first_ + row, n, tap);
    in_.EnQue(tile);
    return in_.DeQue<T>();
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  TQue<TPosition::VECOUT, 1> slot_out_;
  ComputeIn<T> tap_f_;
  ComputeOut<T> best_f_;
  TBuf<TPosition::VECCALC> tap_number_;
  TBuf<TPosition::VECCALC> greater_;
  TBuf<TPosition::VECCALC> ordered_;
  GlobalTensor<T> x_;
  GlobalTensor<T> y_;
  GlobalTensor<float> slot_;
  MaxPoolTiling t_{};
  uint64_t first_ = 0;
  uint64_t rows_ = 0;
};

template <typename T>
__aicore__ inline void run_max_pool(GM_ADDR x, GM_ADDR y, GM_ADDR slot, GM_ADDR tiling) {
  run_kernel<MaxPoolKernel<T>>(load_tiling<MaxPoolTiling>(tiling), x, y, slot);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_MAX_POOL_RUN kiln::ascend::run_max_pool
KILN_ASCEND_DEFINE_KERNELS(KILN_MAX_POOL)
