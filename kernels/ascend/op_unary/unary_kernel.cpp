// Ascend C unary elementwise kernel: CopyIn -> op -> CopyOut over double-buffered UB tiles.
//
// Half, float and int32 compute natively on the vector unit where the op is one instruction (or
// exact); multi-step formulas on half, and every op on bfloat16 (a storage type there), cast the
// tile to float, compute and cast back, so the result rounds once, to nearest even.
#include "kernel_operator.h"
#include "kernels/ascend/common/elementwise_stream.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/op_unary/unary_kernels.h"
#include "kernels/ascend/op_unary/unary_math.h"
#include "kernels/ascend/op_unary/unary_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

// clamp: min(max(x, lo), hi), so lo > hi gives hi as in torch; floats keep NaN from x.
template <typename C>
__aicore__ inline void clamp(const LocalTensor<C>& dst, const LocalTensor<C>& src,
                             const UnaryLimits& limits, const LocalTensor<uint8_t>& mask,
                             uint32_t n) {
  if constexpr (std::is_same_v<C, int32_t>) {
    if (limits.has_min != 0) Maxs(dst, src, limits.min_int, n);
    if (limits.has_max != 0) Mins(dst, limits.has_min != 0 ? dst : src, limits.max_int, n);
  } else {
    // The limits are exact in C: the host rounded them to the storage dtype.
    if (limits.has_min != 0) Maxs(dst, src, C(limits.min_value), n);
    if (limits.has_max != 0) Mins(dst, limits.has_min != 0 ? dst : src, C(limits.max_value), n);
    keep_nan(dst, src, mask, n);
  }
}

// The op on `n` elements of a compute type (half, float or int32). Multi-step formulas exist
// for float only: the host sets compute_float for them on 16-bit storage.
template <typename C>
__aicore__ inline void apply(UnaryOp op, const LocalTensor<C>& dst, const LocalTensor<C>& src,
                             const UnaryWork& work, const UnaryLimits& limits, uint32_t n) {
  switch (op) {
    case UnaryOp::Relu:
      Relu(dst, src, n);
      if constexpr (!std::is_same_v<C, int32_t>) keep_nan(dst, src, work.m0, n);
      return;
    case UnaryOp::Abs:
      if constexpr (std::is_same_v<C, int32_t>) {
        // Abs takes half and float only: |x| = max(x, -x), INT_MIN wrapping to itself as in torch.
        Muls(dst, src, C(-1), n);
        Max(dst, dst, src, n);
      } else {
        Abs(dst, src, n);
      }
      return;
    case UnaryOp::Neg:
      Muls(dst, src, C(-1), n);  // int32: INT_MIN wraps to itself, as in torch
      return;
    case UnaryOp::Clamp:
      clamp<C>(dst, src, limits, work.m0, n);
      return;
    default:
      break;
  }
  if constexpr (!std::is_same_v<C, int32_t>) {
    switch (op) {
      case UnaryOp::Exp:
        Exp(dst, src, n);
        return;
      case UnaryOp::Sqrt:
        Sqrt(dst, src, n);
        return;
      case UnaryOp::Rsqrt:
        Rsqrt(dst, src, n);
        return;
      default:
        break;
    }
  }
  if constexpr (std::is_same_v<C, float>) {
    switch (op) {
      case UnaryOp::GeluErf:
        gelu_erf_float(dst, src, work, n);
        return;
      case UnaryOp::GeluTanh:
        gelu_tanh_float(dst, src, work, n);
        return;
      case UnaryOp::Sigmoid:
        sigmoid_float(dst, src, work, n);
        return;
      case UnaryOp::Tanh:
        tanh_float(dst, src, work, n);
        return;
      default:
        break;
    }
  }
}

// T is the storage type; C the type the vector unit computes in (T, or float).
template <typename T, typename C>
class UnaryKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const UnaryTiling& tiling) {
    op_ = static_cast<UnaryOp>(tiling.op);
    limits_ = tiling.limits;
    tile_ = tiling.tile_elems;
    if (!stream_.Init(pipe_, x, y, tiling.total, tiling.block_elems, tile_)) return;
    const UnaryNeeds needs = unary_needs(op_);
    if (needs.masks > 0) pipe_.InitBuffer(mask0_, tile_ / 8);
    if (needs.masks > 1) pipe_.InitBuffer(mask1_, tile_ / 8);
    // Scratch tiles of C: the op's own, then (16-bit storage in float) the widened input and
    // result.
    scratch_tiles_ = needs.scratch_tiles + (std::is_same_v<T, C> ? 0 : 2);
    if (scratch_tiles_ > 0) pipe_.InitBuffer(scratch_, scratch_tiles_ * tile_ * sizeof(C));
  }

  __aicore__ inline void Process() { stream_.Process(*this); }

  // y = op(x) over one tile's n elements (ElementwiseStream::Process).
  __aicore__ inline void Compute(const LocalTensor<T>& y, const LocalTensor<T>& x, uint32_t n) {
    const UnaryNeeds needs = unary_needs(op_);
    LocalTensor<C> scratch;
    if (scratch_tiles_ > 0) scratch = scratch_.Get<C>(scratch_tiles_ * tile_);
    UnaryWork work;
    if constexpr (std::is_same_v<C, float>) {
      if (needs.scratch_tiles > 0) work.s0 = scratch;
      if (needs.scratch_tiles > 1) work.s1 = scratch[tile_];
      if (needs.scratch_tiles > 2) work.s2 = scratch[2 * tile_];
    }
    if (needs.masks > 0) work.m0 = mask0_.Get<uint8_t>();
    if (needs.masks > 1) work.m1 = mask1_.Get<uint8_t>();
    if constexpr (std::is_same_v<T, C>) {
      apply<C>(op_, y, x, work, limits_, n);
    } else {
      LocalTensor<C> a = scratch[needs.scratch_tiles * tile_];
      LocalTensor<C> b = scratch[(needs.scratch_tiles + 1) * tile_];
      Cast(a, x, RoundMode::CAST_NONE, n);
      apply<C>(op_, b, a, work, limits_, n);
      Cast(y, b, kNarrowToNearest<T>, n);
    }
  }

 private:
  TPipe pipe_;
  ElementwiseStream<T, T> stream_;
  TBuf<TPosition::VECCALC> mask0_;
  TBuf<TPosition::VECCALC> mask1_;
  TBuf<TPosition::VECCALC> scratch_;
  UnaryOp op_ = UnaryOp::Relu;
  UnaryLimits limits_;
  uint32_t tile_ = 0;
  uint32_t scratch_tiles_ = 0;
};

// One launch of the kernel for storage type T computing in C. The half entry computes in float
// instead when the tiling asks (a formula of several instructions, which then rounds once).
template <typename T, typename C>
__aicore__ inline void run_unary(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const auto t = load_tiling<UnaryTiling>(tiling);
  if constexpr (std::is_same_v<T, half> && std::is_same_v<C, half>) {
    if (t.compute_float != 0) {
      run_kernel<UnaryKernel<half, float>>(t, x, y);
      return;
    }
  }
  run_kernel<UnaryKernel<T, C>>(t, x, y);
}

}  // namespace
}  // namespace kiln::ascend

// One entry per storage dtype, so each compiles only the vector code its dtype needs.
#define KILN_UNARY_RUN kiln::ascend::run_unary
KILN_ASCEND_DEFINE_KERNELS(KILN_UNARY)
