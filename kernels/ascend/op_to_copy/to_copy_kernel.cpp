// Ascend C dtype-converting copy kernel: CopyIn -> Cast -> CopyOut over double-buffered UB tiles.
//
// Conversions follow torch's CPU casts: to float exactly (int32 rounds to nearest even); to
// half/bfloat16 through float, rounding to nearest even (int32 rounds twice, as torch's int ->
// float -> half does); to int32 truncating toward zero. A same-dtype copy moves the bytes.
#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/elementwise_stream.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/op_to_copy/to_copy_kernels.h"
#include "kernels/ascend/op_to_copy/to_copy_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

// S is the source storage type, D the destination's.
template <typename S, typename D>
class ToCopyKernel {
  static constexpr bool kViaFloat =
      !std::is_same_v<S, D> && !std::is_same_v<D, float> && !std::is_same_v<S, float>;

 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ToCopyTiling& tiling) {
    const uint32_t tile = tiling.tile_elems;
    int_min_ = tiling.invalid_to_int_min != 0;
    if (!stream_.Init(pipe_, x, y, tiling.total, tiling.block_elems, tile)) return;
    if constexpr (kViaFloat) pipe_.InitBuffer(wide_, tile * sizeof(float));
    if constexpr (std::is_same_v<D, int32_t> && !std::is_same_v<S, int32_t>) {
      pipe_.InitBuffer(mask_, tile / 8);
    }
  }

  __aicore__ inline void Process() { stream_.Process(*this); }

  // y = x converted, over one tile's n elements (ElementwiseStream::Process).
  __aicore__ inline void Compute(const LocalTensor<D>& y, const LocalTensor<S>& x, uint32_t n) {
    if constexpr (std::is_same_v<S, D>) {
      DataCopy(y, x, n);
    } else if constexpr (std::is_same_v<D, float>) {
      Cast(y, x, RoundMode::CAST_NONE, n);
    } else if constexpr (std::is_same_v<D, int32_t>) {
      LocalTensor<float> f;
      if constexpr (std::is_same_v<S, float>) {
        f = x;
      } else {
        f = wide_.Get<float>();
        Cast(f, x, RoundMode::CAST_NONE, n);
        PipeBarrier<PIPE_V>();
      }
      if (int_min_) ToIntMin(f, n);
      Cast(y, f, RoundMode::CAST_TRUNC, n);
    } else if constexpr (std::is_same_v<S, float>) {
      Cast(y, x, kNarrowToNearest<D>, n);
    } else {
      LocalTensor<float> f = wide_.Get<float>();
      Cast(f, x, RoundMode::CAST_NONE, n);
      PipeBarrier<PIPE_V>();
      Cast(y, f, kNarrowToNearest<D>, n);
    }
  }

 private:
  // NaN, +inf and values >= 2^31 become -2^31, which Cast truncates to INT32_MIN; -inf and
  // values below -2^31 already saturate there. (x < 2^31 is false exactly for those.)
  __aicore__ inline void ToIntMin(const LocalTensor<float>& f, uint32_t n) {
    LocalTensor<uint8_t> mask = mask_.Get<uint8_t>();
    CompareScalar(mask, f, 2147483648.0f, CMPMODE::LT, n);
    PipeBarrier<PIPE_V>();
    Select(f, mask, f, -2147483648.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
    PipeBarrier<PIPE_V>();
  }

  TPipe pipe_;
  ElementwiseStream<S, D> stream_;
  TBuf<TPosition::VECCALC> wide_;
  TBuf<TPosition::VECCALC> mask_;
  bool int_min_ = false;
};

// The destination dtype comes with the tiling; bfloat16 destinations exist on Ascend910B only.
template <typename S>
__aicore__ inline void run_to(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const auto t = load_tiling<ToCopyTiling>(tiling);
  switch (static_cast<DeviceDtype>(t.dst_dtype)) {
    case DeviceDtype::Float:
      run_kernel<ToCopyKernel<S, float>>(t, x, y);
      break;
    case DeviceDtype::Half:
      run_kernel<ToCopyKernel<S, half>>(t, x, y);
      break;
    case DeviceDtype::Int32:
      run_kernel<ToCopyKernel<S, int32_t>>(t, x, y);
      break;
    case DeviceDtype::BFloat16:
#if !defined(__NPU_ARCH__) || __NPU_ARCH__ == 2201
      run_kernel<ToCopyKernel<S, bfloat16_t>>(t, x, y);
#endif
      break;
  }
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_TO_COPY_RUN kiln::ascend::run_to
KILN_ASCEND_DEFINE_KERNELS(KILN_TO_COPY)
