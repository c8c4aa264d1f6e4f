// Ascend C unary elementwise kernel: CopyIn -> op -> CopyOut over double-buffered UB tiles.
//
// Half, float and int32 compute natively on the vector unit; bfloat16 is a storage type there, so
// its tiles are cast to float, computed and cast back (rounding once, to nearest even).
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/op_unary/unary_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i computes

// The op on `n` elements of a compute type (half, float or int32); `mask` is scratch for
// n bits.
template <typename C>
__aicore__ inline void apply(UnaryOp op, const LocalTensor<C>& dst, const LocalTensor<C>& src,
                             const LocalTensor<uint8_t>& mask, uint32_t n) {
  switch (op) {
    case UnaryOp::Relu:
      Relu(dst, src, n);
      if constexpr (!std::is_same_v<C, int32_t>) keep_nan(dst, src, mask, n);
      break;
  }
}

// T is the storage type; C the type the vector unit computes in (T, or float for bfloat16).
template <typename T, typename C>
class UnaryKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const UnaryTiling& tiling) {
    op_ = static_cast<UnaryOp>(tiling.op);
    tile_ = tiling.tile_elems;
    const BlockRange range = block_range(tiling.total, tiling.block_elems);
    length_ = range.length;
    if (length_ == 0) return;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + range.start, length_);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + range.start, length_);
    pipe_.InitBuffer(in_, kBufferNum, tile_ * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, tile_ * sizeof(T));
    pipe_.InitBuffer(mask_, tile_ / 8);
    if constexpr (!std::is_same_v<T, C>) pipe_.InitBuffer(scratch_, 2 * tile_ * sizeof(C));
  }

  __aicore__ inline void Process() {
    for (uint64_t offset = 0; offset < length_; offset += tile_) {
      const uint32_t n = static_cast<uint32_t>(length_ - offset < tile_ ? length_ - offset : tile_);
      CopyIn(offset, n);
      Compute(n);
      CopyOut(offset, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint64_t offset, uint32_t n) {
    LocalTensor<T> x = in_.AllocTensor<T>();
    DataCopy(x, x_[offset], n);
    in_.EnQue(x);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<T> x = in_.DeQue<T>();
    LocalTensor<T> y = out_.AllocTensor<T>();
    LocalTensor<uint8_t> mask = mask_.Get<uint8_t>();
    if constexpr (std::is_same_v<T, C>) {
      apply<C>(op_, y, x, mask, n);
    } else {
      LocalTensor<C> wide = scratch_.Get<C>(2 * tile_);
      LocalTensor<C> a = wide;
      LocalTensor<C> b = wide[tile_];
      Cast(a, x, RoundMode::CAST_NONE, n);
      apply<C>(op_, b, a, mask, n);
      Cast(y, b, RoundMode::CAST_RINT, n);
    }
    out_.EnQue(y);
    in_.FreeTensor(x);
  }

  __aicore__ inline void CopyOut(uint64_t offset, uint32_t n) {
    LocalTensor<T> y = out_.DeQue<T>();
    DataCopy(y_[offset], y, n);
    out_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  TBuf<TPosition::VECCALC> mask_;
  TBuf<TPosition::VECCALC> scratch_;
  GlobalTensor<T> x_;
  GlobalTensor<T> y_;
  UnaryOp op_ = UnaryOp::Relu;
  uint64_t length_ = 0;
  uint32_t tile_ = 0;
};

template <typename T, typename C>
__aicore__ inline void run_unary(GM_ADDR x, GM_ADDR y, const UnaryTiling& tiling) {
  UnaryKernel<T, C> kernel;
  kernel.Init(x, y, tiling);
  kernel.Process();
}

}  // namespace
}  // namespace kiln::ascend

// One entry per storage dtype, so each compiles only the vector code its dtype needs.
extern "C" __global__ __aicore__ void kiln_unary_float(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const auto t = kiln::ascend::load_tiling<kiln::ascend::UnaryTiling>(tiling);
  kiln::ascend::run_unary<float, float>(x, y, t);
}

extern "C" __global__ __aicore__ void kiln_unary_half(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const auto t = kiln::ascend::load_tiling<kiln::ascend::UnaryTiling>(tiling);
  kiln::ascend::run_unary<half, half>(x, y, t);
}

extern "C" __global__ __aicore__ void kiln_unary_int32(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const auto t = kiln::ascend::load_tiling<kiln::ascend::UnaryTiling>(tiling);
  kiln::ascend::run_unary<int32_t, int32_t>(x, y, t);
}

#if !defined(__NPU_ARCH__) || __NPU_ARCH__ == 2201
// bfloat16 exists on Ascend910B (arch 2201) only.
extern "C" __global__ __aicore__ void kiln_unary_bf16(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const auto t = kiln::ascend::load_tiling<kiln::ascend::UnaryTiling>(tiling);
  kiln::ascend::run_unary<bfloat16_t, float>(x, y, t);
}
#endif
