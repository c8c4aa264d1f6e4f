// Device-side GM <-> UB plumbing of Kiln's flat elementwise kernels (unary, to_copy): a core's
// range of x and y, streamed through double-buffered UB tiles (CopyIn -> compute -> CopyOut).
#pragma once

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"

namespace kiln::ascend {

// x of storage type S in, y of storage type D out, element for element.
template <typename S, typename D>
class ElementwiseStream {
  static constexpr int32_t kBufferNum = 2;  // tile i+1 copies in while tile i computes

 public:
  // This core's range of `total` elements split in `block_elems` parts (block_range), and the
  // input and output queues for tiles of `tile_elems`: the first buffers of `pipe`, before the
  // kernel's own. False when the core has nothing to do.
  __aicore__ inline bool Init(AscendC::TPipe& pipe, GM_ADDR x, GM_ADDR y, uint64_t total,
                              uint64_t block_elems, uint32_t tile_elems) {
    tile_ = tile_elems;
    const BlockRange range = block_range(total, block_elems);
    length_ = range.length;
    if (length_ == 0) return false;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ S*>(x) + range.start, length_);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ D*>(y) + range.start, length_);
    pipe.InitBuffer(in_, kBufferNum, tile_ * sizeof(S));
    pipe.InitBuffer(out_, kBufferNum, tile_ * sizeof(D));
    return true;
  }

  // Every tile of the range: copied in, kernel.Compute(y, x, n) over its n elements, copied out.
  template <typename Kernel>
  __aicore__ inline void Process(Kernel& kernel) {
    for (uint64_t offset = 0; offset < length_; offset += tile_) {
      const uint32_t n = static_cast<uint32_t>(length_ - offset < tile_ ? length_ - offset : tile_);
      copy_in(in_, x_[offset], n);
      AscendC::LocalTensor<S> x = in_.template DeQue<S>();
      AscendC::LocalTensor<D> y = out_.template AllocTensor<D>();
      kernel.Compute(y, x, n);
      out_.EnQue(y);
      in_.FreeTensor(x);
      copy_out(y_[offset], out_, n);
    }
  }

 private:
  AscendC::TQue<AscendC::TPosition::VECIN, 1> in_;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> out_;
  AscendC::GlobalTensor<S> x_;
  AscendC::GlobalTensor<D> y_;
  uint64_t length_ = 0;
  uint32_t tile_ = 0;
};

}  // namespace kiln::ascend
