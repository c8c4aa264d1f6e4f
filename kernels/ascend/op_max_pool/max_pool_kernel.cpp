// Ascend C max pooling kernel: the element-wise maximum over a window's tap planes, and the plane
// it came from, over double-buffered UB tiles (CopyIn -> Compare/Select -> CopyOut).
//
// torch's rule, tap by tap in window order: a larger value or any NaN takes over, so the last
// NaN of a window wins. The vector unit's Max does not promise NaN, so the kernel compares: a
// tap replaces the maximum where tap > maximum, and where tap != tap. Values are compared in
// float (exact for half and bfloat16) and come out unchanged.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/op_max_pool/max_pool_kernels.h"
#include "kernels/ascend/op_max_pool/max_pool_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i computes

// T: input/output storage type.
template <typename T>
class MaxPoolKernel {
 public:
  __aicore__ inline void Init(GM_ADDR taps, GM_ADDR y, GM_ADDR slot, const MaxPoolTiling& tiling) {
    taps_count_ = tiling.taps;
    total_ = tiling.total;
    tile_ = tiling.tile_elems;
    const BlockRange range = block_range(tiling.total, tiling.block_elems);
    start_ = range.start;
    length_ = range.length;
    if (length_ == 0) return;
    taps_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(taps), taps_count_ * total_);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + start_, length_);
    slot_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(slot) + start_, length_);
    pipe_.InitBuffer(in_, kBufferNum, tile_ * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, tile_ * sizeof(T));
    pipe_.InitBuffer(slot_out_, kBufferNum, tile_ * sizeof(float));
    tap_f_.Init(pipe_, tile_);
    best_f_.Init(pipe_, tile_);
    pipe_.InitBuffer(plane_, tile_ * sizeof(float));
    pipe_.InitBuffer(greater_, tile_ / 8);
    pipe_.InitBuffer(ordered_, tile_ / 8);
  }

  __aicore__ inline void Process() {
    for (uint64_t offset = 0; offset < length_; offset += tile_) {
      const uint32_t n = static_cast<uint32_t>(length_ - offset < tile_ ? length_ - offset : tile_);
      Tile(offset, n);
    }
  }

 private:
  __aicore__ inline void Tile(uint64_t offset, uint32_t n) {
    LocalTensor<T> y = out_.AllocTensor<T>();
    LocalTensor<float> slot = slot_out_.AllocTensor<float>();
    const LocalTensor<float> best = best_f_.View(y);
    copy_in(in_, taps_[start_ + offset], n);
    LocalTensor<T> first = in_.DeQue<T>();
    Muls(best, tap_f_.View(first, n), 1.0f, n);  // exact, NaN and -0 included
    Duplicate(slot, 0.0f, n);
    in_.FreeTensor(first);
    LocalTensor<float> plane = plane_.Get<float>();
    LocalTensor<uint8_t> greater = greater_.Get<uint8_t>();
    LocalTensor<uint8_t> ordered = ordered_.Get<uint8_t>();
    for (uint32_t t = 1; t < taps_count_; ++t) {
      copy_in(in_, taps_[t * total_ + start_ + offset], n);
      LocalTensor<T> tap_t = in_.DeQue<T>();
      const LocalTensor<float> tap = tap_f_.View(tap_t, n);
      PipeBarrier<PIPE_V>();
      Compare(greater, tap, best, CMPMODE::GT, n);
      Compare(ordered, tap, tap, CMPMODE::EQ, n);  // false only where the tap is NaN
      Duplicate(plane, static_cast<float>(t), n);
      PipeBarrier<PIPE_V>();
      Select(best, greater, tap, best, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
      Select(slot, greater, plane, slot, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
      PipeBarrier<PIPE_V>();
      Select(best, ordered, best, tap, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
      Select(slot, ordered, slot, plane, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
      in_.FreeTensor(tap_t);
    }
    best_f_.Emit(out_, y, n);
    slot_out_.EnQue(slot);
    copy_out(y_[offset], out_, n);
    copy_out(slot_[offset], slot_out_, n);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  TQue<TPosition::VECOUT, 1> slot_out_;
  ComputeIn<T> tap_f_;
  ComputeOut<T> best_f_;
  TBuf<TPosition::VECCALC> plane_;
  TBuf<TPosition::VECCALC> greater_;
  TBuf<TPosition::VECCALC> ordered_;
  GlobalTensor<T> taps_;
  GlobalTensor<T> y_;
  GlobalTensor<float> slot_;
  uint64_t total_ = 0;
  uint64_t start_ = 0;
  uint64_t length_ = 0;
  uint32_t taps_count_ = 0;
  uint32_t tile_ = 0;
};

template <typename T>
__aicore__ inline void run_max_pool(GM_ADDR taps, GM_ADDR y, GM_ADDR slot, GM_ADDR tiling) {
  run_kernel<MaxPoolKernel<T>>(load_tiling<MaxPoolTiling>(tiling), taps, y, slot);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_MAX_POOL_RUN kiln::ascend::run_max_pool
KILN_ASCEND_DEFINE_KERNELS(KILN_MAX_POOL)
