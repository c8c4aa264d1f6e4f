// Ascend C affine quantize / dequantize kernels (ExecuTorch's quantized_decomposed operators),
// with the portable kernels' arithmetic exactly (kernels/portable/cpu/util/quantized/affine.h):
//
//   quantize:   q = clamp(zero_point + rint(float(x * inv_scale)), quant_min, quant_max)
//   dequantize: y = out_dtype(float(q - zero_point) * scale)
//
// Quantize: x is widened to float (exact) and multiplied by inv_scale (one rounding, as
// ExecuTorch's float product); NaN becomes the lowest float; Cast to int32 rounds to nearest even
// (CAST_RINT) and saturates, so +-inf and values past int32 land on its ends; the codes are
// clamped to [quant_min - zero_point, quant_max - zero_point] and shifted by the zero point in
// int32, which for integers is clamp(rint + zero_point, quant_min, quant_max) (the host declines
// an Int32 range that the shift would carry out of int32). The scalar unit narrows the codes to
// 8 and 16 bits: the vector unit's Casts to 1- and 2-byte integers (CANN's half -> int8_t /
// uint8_t, int32_t -> int16_t) are not in Kiln's emulator, so no kernel may use them yet.
//
// Dequantize: int8 widens through half (exact); uint8 is read as int8 and gets 256 added where
// negative; 16-bit values widen to int32 on the scalar unit and Cast to float (exact); then
// q - zero_point is exact in float. Int32 input subtracts the zero point in int32 (the host
// checks that it cannot wrap) and Casts the difference to float, rounding once to nearest even.
// The product with the scale rounds once in float, and a half / bfloat16 out once more, as
// ExecuTorch's conversion of the float product does.
#include <type_traits>

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/common/row_math.h"
#include "kernels/ascend/op_quantize/quantize_kernels.h"
#include "kernels/ascend/op_quantize/quantize_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i computes
constexpr float kLowestFloat = -3.40282347e+38f;

enum class RowOp { Mul, Add, Max, Min };

// The parameters of a core's rows (quantize_tiling.h): a channel's record in GM, read on the
// scalar unit (row mode), or the planes of a row's chunk, held in UB (column mode).
class AffineParams {
 public:
  __aicore__ inline void Init(TPipe& pipe, GM_ADDR params, const QuantizeTiling& tiling,
                              uint64_t first_row) {
    column_ = tiling.column_mode != 0;
    pitch_ = tiling.split.pitch;
    parts_ = tiling.parts;
    channels_ = tiling.channels;
    outer_ = tiling.outer;
    first_ = first_row;
    const uint64_t words = param_words(tiling);
    floats_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(params), words);
    ints_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(params), words);
    if (column_) pipe.InitBuffer(planes_que_, 1, kAffineParamWords * pitch_ * sizeof(float));
  }

  // The rows, of up to `rows` from the core's row `row` on, that share its parameters: all of
  // them in row mode, those of its chunk in column mode, whose planes it brings into UB.
  __aicore__ inline uint32_t Bind(uint64_t row, uint32_t rows) {
    if (!column_) return rows;
    const uint64_t global = first_ + row;
    const uint64_t chunk = global / outer_;
    if (!bound_ || chunk != chunk_) {
      Release();
      const uint32_t count = kAffineParamWords * pitch_;
      copy_in(planes_que_, floats_[chunk * count], count);
      planes_ = planes_que_.DeQue<float>();
      chunk_ = chunk;
      bound_ = true;
    }
    const uint64_t left = (chunk + 1) * outer_ - global;
    return left < rows ? static_cast<uint32_t>(left) : rows;
  }

  __aicore__ inline void Release() {
    if (bound_) planes_que_.FreeTensor(planes_);
    bound_ = false;
  }

  // dst = src <op> parameter word `slot`, over each of `rows` rows of `len` elements (the
  // core's rows from `row` on), with the row's own parameter.
  template <RowOp kOp, typename T>
  __aicore__ inline void Apply(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t slot,
                               uint64_t row, uint32_t rows, uint32_t len) {
    for (uint32_t i = 0; i < rows; ++i) {
      const LocalTensor<T> d = dst[i * len];
      const LocalTensor<T> s = src[i * len];
      if (column_) {
        const LocalTensor<T> p = planes_[slot * pitch_].template ReinterpretCast<T>();
        if constexpr (kOp == RowOp::Mul) Mul(d, s, p, len);
        if constexpr (kOp == RowOp::Add) Add(d, s, p, len);
        if constexpr (kOp == RowOp::Max) Max(d, s, p, len);
        if constexpr (kOp == RowOp::Min) Min(d, s, p, len);
      } else {
        const T v = Word<T>(row + i, slot);
        if constexpr (kOp == RowOp::Mul) Muls(d, s, v, len);
        if constexpr (kOp == RowOp::Add) Adds(d, s, v, len);
        if constexpr (kOp == RowOp::Max) Maxs(d, s, v, len);
        if constexpr (kOp == RowOp::Min) Mins(d, s, v, len);
      }
    }
  }

 private:
  // Row mode: word `slot` of the record of the channel of the core's row `row`.
  template <typename T>
  __aicore__ inline T Word(uint64_t row, uint32_t slot) {
    const uint64_t channel = (first_ + row) / parts_ % channels_;
    if constexpr (std::is_same_v<T, float>) {
      return floats_.GetValue(channel * kAffineParamWords + slot);
    } else {
      return ints_.GetValue(channel * kAffineParamWords + slot);
    }
  }

  TQue<TPosition::VECIN, 1> planes_que_;
  GlobalTensor<float> floats_;
  GlobalTensor<int32_t> ints_;
  LocalTensor<float> planes_;
  uint64_t parts_ = 1;
  uint64_t channels_ = 1;
  uint64_t outer_ = 1;
  uint64_t first_ = 0;
  uint64_t chunk_ = 0;
  uint32_t pitch_ = 0;
  bool column_ = false;
  bool bound_ = false;
};

// Calls kernel.Tile(offset, row, rows, len) for every tile of the core's rows: `rows` rows of
// `len` elements from the core's row `row`, at element `offset` of its range. A row longer than
// a tile (row mode only) goes in chunks, one tile each.
template <typename Kernel>
__aicore__ inline void for_each_tile(const RowBlock& block, const RowSplit& split,
                                     AffineParams& params, Kernel& kernel) {
  if (block.chunked) {
    for (uint64_t row = 0; row < block.rows; ++row) {
      for (uint32_t offset = 0; offset < split.pitch; offset += split.chunk) {
        kernel.Tile(row * split.pitch + offset, row, 1, chunk_copied(split, offset));
      }
    }
    return;
  }
  for (uint64_t row = 0; row < block.rows;) {
    const uint32_t rows = params.Bind(row, block.TileRowsAt(row));
    kernel.Tile(row * split.pitch, row, rows, split.pitch);
    row += rows;
  }
}

// y = codes narrowed to Q on the scalar unit (the codes fit: they are clamped to Q's range).
template <typename Q>
__aicore__ inline void narrow_on_scalar(const LocalTensor<Q>& y, const LocalTensor<int32_t>& codes,
                                        uint32_t count) {
  wait_pipe<HardEvent::V_S>();     // the codes the vector unit wrote
  wait_pipe<HardEvent::MTE3_S>();  // y's buffer, copied out last time round
  for (uint32_t i = 0; i < count; ++i) y.SetValue(i, static_cast<Q>(codes.GetValue(i)));
  wait_pipe<HardEvent::S_MTE3>();  // the copy out reads what the scalar unit wrote
  wait_pipe<HardEvent::S_V>();     // the next tile's vector writes wait for these reads
}

// wide = q widened to int32 on the scalar unit.
template <typename Q>
__aicore__ inline void widen_on_scalar(const LocalTensor<int32_t>& wide, const LocalTensor<Q>& q,
                                       uint32_t count) {
  wait_pipe<HardEvent::MTE2_S>();  // q as MTE2 brought it (its DeQue orders MTE2 before V only)
  wait_pipe<HardEvent::V_S>();     // the vector unit's last use of the work tile
  for (uint32_t i = 0; i < count; ++i) wide.SetValue(i, static_cast<int32_t>(q.GetValue(i)));
  wait_pipe<HardEvent::S_V>();     // the vector unit reads what the scalar unit wrote
  wait_pipe<HardEvent::S_MTE2>();  // MTE2 refills q's buffer only after these reads
}

// F: the input's storage type (float, half, bfloat16_t); Q: the quantized one.
template <typename F, typename Q>
class QuantizeKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR params, GM_ADDR y, const QuantizeTiling& tiling) {
    split_ = tiling.split;
    block_ = row_block(split_);
    if (block_.rows == 0) return;
    const uint64_t first = block_.first * split_.pitch;
    const uint64_t length = block_.rows * split_.pitch;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ F*>(x) + first, length);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ Q*>(y) + first, length);
    pipe_.InitBuffer(in_, kBufferNum, block_.tile_elems * sizeof(F));
    pipe_.InitBuffer(out_, kBufferNum, block_.tile_elems * sizeof(Q));
    pipe_.InitBuffer(work_, block_.tile_elems * sizeof(float));
    pipe_.InitBuffer(mask_, block_.tile_elems / 8);
    params_.Init(pipe_, params, tiling, block_.first);
  }

  __aicore__ inline void Process() {
    if (block_.rows == 0) return;
    for_each_tile(block_, split_, params_, *this);
    params_.Release();
  }

  __aicore__ inline void Tile(uint64_t offset, uint64_t row, uint32_t rows, uint32_t len) {
    const uint32_t count = rows * len;
    copy_in(in_, x_[offset], count);
    LocalTensor<F> x = in_.template DeQue<F>();
    LocalTensor<float> w = work_.Get<float>();
    if constexpr (std::is_same_v<F, float>) {
      params_.Apply<RowOp::Mul>(w, x, kQuantInvScale, row, rows, len);
    } else {
      Cast(w, x, RoundMode::CAST_NONE, count);
      PipeBarrier<PIPE_V>();
      params_.Apply<RowOp::Mul>(w, w, kQuantInvScale, row, rows, len);
    }
    PipeBarrier<PIPE_V>();
    in_.FreeTensor(x);
    // NaN, for which no comparison holds, becomes the lowest float and so quant_min.
    LocalTensor<uint8_t> mask = mask_.Get<uint8_t>();
    Compare(mask, w, w, CMPMODE::EQ, count);
    PipeBarrier<PIPE_V>();
    Select(w, mask, w, kLowestFloat, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
    PipeBarrier<PIPE_V>();
    const LocalTensor<int32_t> codes = w.ReinterpretCast<int32_t>();
    Cast(codes, w, RoundMode::CAST_RINT, count);
    PipeBarrier<PIPE_V>();
    params_.Apply<RowOp::Max>(codes, codes, kQuantLow, row, rows, len);
    PipeBarrier<PIPE_V>();
    params_.Apply<RowOp::Min>(codes, codes, kQuantHigh, row, rows, len);
    PipeBarrier<PIPE_V>();
    LocalTensor<Q> y = out_.template AllocTensor<Q>();
    if constexpr (std::is_same_v<Q, int32_t>) {
      params_.Apply<RowOp::Add>(y, codes, kQuantZeroPoint, row, rows, len);
    } else {
      params_.Apply<RowOp::Add>(codes, codes, kQuantZeroPoint, row, rows, len);
      narrow_on_scalar(y, codes, count);
    }
    out_.EnQue(y);
    copy_out(y_[offset], out_, count);
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  TBuf<TPosition::VECCALC> work_;
  TBuf<TPosition::VECCALC> mask_;
  GlobalTensor<F> x_;
  GlobalTensor<Q> y_;
  AffineParams params_;
  RowSplit split_{};
  RowBlock block_;
};

// Q: the input's quantized storage type; F: the out's (float, half, bfloat16_t).
template <typename Q, typename F>
class DequantizeKernel {
  static constexpr bool kByte = sizeof(Q) == 1;

 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR params, GM_ADDR y, const QuantizeTiling& tiling) {
    split_ = tiling.split;
    block_ = row_block(split_);
    if (block_.rows == 0) return;
    const uint64_t first = block_.first * split_.pitch;
    const uint64_t length = block_.rows * split_.pitch;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ Q*>(x) + first, length);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ F*>(y) + first, length);
    pipe_.InitBuffer(in_, kBufferNum, block_.tile_elems * sizeof(Q));
    pipe_.InitBuffer(out_, kBufferNum, block_.tile_elems * sizeof(F));
    pipe_.InitBuffer(work_, block_.tile_elems * sizeof(float));
    if constexpr (kByte) pipe_.InitBuffer(aux_, block_.tile_elems * sizeof(float));
    if constexpr (std::is_same_v<Q, uint8_t>) pipe_.InitBuffer(mask_, block_.tile_elems / 8);
    params_.Init(pipe_, params, tiling, block_.first);
  }

  __aicore__ inline void Process() {
    if (block_.rows == 0) return;
    for_each_tile(block_, split_, params_, *this);
    params_.Release();
  }

  __aicore__ inline void Tile(uint64_t offset, uint64_t row, uint32_t rows, uint32_t len) {
    const uint32_t count = rows * len;
    copy_in(in_, x_[offset], count);
    LocalTensor<Q> q = in_.template DeQue<Q>();
    LocalTensor<float> w = work_.Get<float>();
    Difference(w, q, row, rows, len);
    in_.FreeTensor(q);
    LocalTensor<F> y = out_.template AllocTensor<F>();
    if constexpr (std::is_same_v<F, float>) {
      params_.Apply<RowOp::Mul>(y, w, kDequantScale, row, rows, len);
    } else {
      params_.Apply<RowOp::Mul>(w, w, kDequantScale, row, rows, len);
      PipeBarrier<PIPE_V>();
      Cast(y, w, kNarrowToNearest<F>, count);
    }
    out_.EnQue(y);
    copy_out(y_[offset], out_, count);
  }

 private:
  // w = float(q - zero_point) over the tile, rounded once (exactly, but for Int32 input).
  __aicore__ inline void Difference(const LocalTensor<float>& w, const LocalTensor<Q>& q,
                                    uint64_t row, uint32_t rows, uint32_t len) {
    const uint32_t count = rows * len;
    const LocalTensor<int32_t> wide = w.ReinterpretCast<int32_t>();
    if constexpr (std::is_same_v<Q, int32_t>) {
      params_.Apply<RowOp::Add>(wide, q, kDequantNegZeroInt, row, rows, len);
      PipeBarrier<PIPE_V>();
      Cast(w, wide, RoundMode::CAST_NONE, count);
      PipeBarrier<PIPE_V>();
      return;
    } else if constexpr (kByte) {
      const LocalTensor<half> h = aux_.Get<half>();
      Cast(h, q.template ReinterpretCast<int8_t>(), RoundMode::CAST_NONE, count);
      PipeBarrier<PIPE_V>();
      Cast(w, h, RoundMode::CAST_NONE, count);
      PipeBarrier<PIPE_V>();
      if constexpr (std::is_same_v<Q, uint8_t>) {
        // Read as int8, a byte q >= 128 is q - 256.
        const LocalTensor<float> lifted = aux_.Get<float>();
        const LocalTensor<uint8_t> negative = mask_.Get<uint8_t>();
        Adds(lifted, w, 256.0f, count);
        CompareScalar(negative, w, 0.0f, CMPMODE::LT, count);
        PipeBarrier<PIPE_V>();
        Select(w, negative, lifted, w, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
        PipeBarrier<PIPE_V>();
      }
    } else {
      widen_on_scalar(wide, q, count);
      Cast(w, wide, RoundMode::CAST_NONE, count);
      PipeBarrier<PIPE_V>();
    }
    params_.Apply<RowOp::Add>(w, w, kDequantNegZeroFloat, row, rows, len);
    PipeBarrier<PIPE_V>();
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  TBuf<TPosition::VECCALC> work_;
  TBuf<TPosition::VECCALC> aux_;
  TBuf<TPosition::VECCALC> mask_;
  GlobalTensor<Q> x_;
  GlobalTensor<F> y_;
  AffineParams params_;
  RowSplit split_{};
  RowBlock block_;
};

template <AffineDirection kDirection, typename F, typename Q>
__aicore__ inline void run_direction(const QuantizeTiling& t, GM_ADDR x, GM_ADDR params,
                                     GM_ADDR y) {
  if constexpr (kDirection == AffineDirection::Quantize) {
    run_kernel<QuantizeKernel<F, Q>>(t, x, params, y);
  } else {
    run_kernel<DequantizeKernel<Q, F>>(t, x, params, y);
  }
}

// The quantized dtype comes with the tiling.
template <AffineDirection kDirection, typename F>
__aicore__ inline void run_affine(GM_ADDR x, GM_ADDR params, GM_ADDR y, GM_ADDR tiling) {
  const auto t = load_tiling<QuantizeTiling>(tiling);
  switch (static_cast<QuantDtype>(t.quant_dtype)) {
    case QuantDtype::UInt8:
      run_direction<kDirection, F, uint8_t>(t, x, params, y);
      break;
    case QuantDtype::Int8:
      run_direction<kDirection, F, int8_t>(t, x, params, y);
      break;
    case QuantDtype::Int16:
      run_direction<kDirection, F, int16_t>(t, x, params, y);
      break;
    case QuantDtype::UInt16:
      run_direction<kDirection, F, uint16_t>(t, x, params, y);
      break;
    case QuantDtype::Int32:
      run_direction<kDirection, F, int32_t>(t, x, params, y);
      break;
  }
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_QUANTIZE_RUN kiln::ascend::run_affine
KILN_ASCEND_DEFINE_KERNELS(KILN_QUANTIZE)
