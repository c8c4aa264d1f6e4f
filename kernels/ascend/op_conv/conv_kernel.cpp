// Ascend C im2col kernel of the 2-d convolution: lays the staged input out as the matmul's
// columns, each core whole column rows, through double-buffered UB tiles.
//
// A column row (sample, group, input channel, kernel row, kernel column) holds, per output row,
// one tap of out_w output columns: in the staged input (window_layout.h) one contiguous run,
// stride_h input rows after the previous one. A strided DataCopy gathers a tile of such runs;
// a row of ones (for the bias) is a Duplicate. The host drops what lies past out_w.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/window_io.h"
#include "kernels/ascend/op_conv/conv_kernels.h"
#include "kernels/ascend/op_conv/conv_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i copies out

// T: storage type.
template <typename T>
class Im2colKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR cols, const Im2colTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.rows, t_.block_rows);
    first_ = range.start;
    rows_ = range.length;
    if (rows_ == 0) return;
    row_elems_ = uint64_t{t_.window.out_h} * t_.window.segment_pitch;
    tile_elems_ = t_.tile_segments * t_.window.segment_pitch;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), t_.window.staged_elems);
    cols_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(cols) + first_ * row_elems_,
                          rows_ * row_elems_);
    pipe_.InitBuffer(in_, kBufferNum, tile_elems_ * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, tile_elems_ * sizeof(T));
  }

  __aicore__ inline void Process() {
    for (uint64_t row = 0; row < rows_; ++row) {
      const uint64_t r = first_ + row;
      const uint32_t k = static_cast<uint32_t>(r % t_.reduce);
      if (t_.bias != 0 && k + 1 == t_.reduce) {
        Ones(row);
      } else {
        Taps(row, r / t_.reduce, k);
      }
    }
  }

 private:
  // Column row `k` of sample-and-group `ng`: one tap of one input channel, tile_segments
  // output rows at a time.
  __aicore__ inline void Taps(uint64_t row, uint64_t ng, uint32_t k) {
    const uint64_t sample = ng / t_.groups;
    const uint32_t group = static_cast<uint32_t>(ng % t_.groups);
    const uint64_t plane = sample * t_.in_channels + group * t_.in_per_group + k / t_.taps;
    const uint32_t segment = t_.window.segment_pitch;
    for (uint32_t oh = 0; oh < t_.window.out_h; oh += t_.tile_segments) {
      const uint32_t rest = t_.window.out_h - oh;
      const uint32_t n = rest < t_.tile_segments ? rest : t_.tile_segments;
      LocalTensor<T> in = in_.AllocTensor<T>();
      copy_tap_runs(in, x_, t_.window, plane, oh, n, k % t_.taps);
      in_.EnQue(in);
      in = in_.DeQue<T>();
      const uint32_t count = n * segment;
      LocalTensor<T> out = out_.AllocTensor<T>();
      DataCopy(out, in, count);
      out_.EnQue(out);
      in_.FreeTensor(in);
      copy_out(cols_[row * row_elems_ + uint64_t{oh} * segment], out_, count);
    }
  }

  // The bias row: ones, so that the bias column of the weights is added once per output.
  __aicore__ inline void Ones(uint64_t row) {
    for (uint64_t offset = 0; offset < row_elems_; offset += tile_elems_) {
      const uint32_t count = static_cast<uint32_t>(
          row_elems_ - offset < tile_elems_ ? row_elems_ - offset : tile_elems_);
      LocalTensor<T> out = out_.AllocTensor<T>();
      Duplicate(out, static_cast<T>(1.0f), count);
      out_.EnQue(out);
      copy_out(cols_[row * row_elems_ + offset], out_, count);
    }
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  GlobalTensor<T> x_;
  GlobalTensor<T> cols_;
  Im2colTiling t_{};
  uint64_t first_ = 0;
  uint64_t rows_ = 0;
  uint64_t row_elems_ = 0;
  uint32_t tile_elems_ = 0;
};

template <typename T>
__aicore__ inline void run_im2col(GM_ADDR x, GM_ADDR cols, GM_ADDR tiling) {
  run_kernel<Im2colKernel<T>>(load_tiling<Im2colTiling>(tiling), x, cols);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_IM2COL_RUN kiln::ascend::run_im2col
KILN_ASCEND_DEFINE_KERNELS(KILN_IM2COL)
