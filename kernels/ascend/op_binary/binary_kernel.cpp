// Ascend C binary elementwise kernel (add, sub, mul, div): CopyIn -> op -> CopyOut over
// double-buffered UB tiles of x, with y streamed beside x, resident in UB, or duplicated per row.
//
// Half, float and int32 compute natively (one rounding per instruction); half computes in float
// when alpha scales y or a scalar y is not exact in half, and bfloat16 (a storage type) always
// does, so out = x + alpha * y rounds once to the storage dtype.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/op_binary/binary_kernels.h"
#include "kernels/ascend/op_binary/binary_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

constexpr int32_t kBufferNum = 2;  // double buffering: tile i+1 copies in while tile i computes

template <typename C>
__aicore__ inline void apply(BinaryOp op, const LocalTensor<C>& dst, const LocalTensor<C>& x,
                             const LocalTensor<C>& y, uint32_t n) {
  switch (op) {
    case BinaryOp::Add:
      Add(dst, x, y, n);
      break;
    case BinaryOp::Sub:
      Sub(dst, x, y, n);
      break;
    case BinaryOp::Mul:
      Mul(dst, x, y, n);
      break;
    case BinaryOp::Div:
      if constexpr (!std::is_same_v<C, int32_t>) Div(dst, x, y, n);  // true division: floats only
      break;
  }
}

// Where one tile lies: `units` consecutive units starting at x element `offset`, which is row
// `row`, column `column`; `n` elements in all.
struct Tile {
  uint64_t offset;
  uint64_t row;
  uint64_t column;
  uint32_t units;
  uint32_t n;
};

// T is the storage type; C the type the vector unit computes in (T, or float).
template <typename T, typename C>
class BinaryKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const BinaryTiling& tiling) {
    t_ = tiling;
    op_ = static_cast<BinaryOp>(tiling.op);
    source_ = static_cast<YSource>(tiling.y_source);
    const uint64_t units = tiling.rows * tiling.units_per_row;
    first_ = tiling.block_units * GetBlockIdx();
    if (first_ >= units) return;
    end_ = units - first_ < tiling.block_units ? units : first_ + tiling.block_units;
    const uint32_t tile = tiling.tile_elems;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), tiling.rows * tiling.pitch);
    z_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(z), tiling.rows * tiling.pitch);
    pipe_.InitBuffer(in_, kBufferNum, tile * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, tile * sizeof(T));
    if constexpr (kWiden) pipe_.InitBuffer(x_wide_, tile * sizeof(C));
    switch (source_) {
      case YSource::Stream:
        y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), tiling.pitch);
        pipe_.InitBuffer(y_in_, kBufferNum, tile * sizeof(T));
        if constexpr (kWiden) pipe_.InitBuffer(y_wide_, tile * sizeof(C));
        break;
      case YSource::Resident:
        pipe_.InitBuffer(y_ub_, tile * sizeof(C));
        if (static_cast<BinaryPattern>(tiling.pattern) == BinaryPattern::Scalar) {
          FillScalar();
        } else {
          y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y),
                             tiling.pattern_from_gm != 0 ? tiling.pitch : tiling.cols);
          FillPattern();
        }
        break;
      case YSource::PerRow:
        y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), tiling.rows);
        pipe_.InitBuffer(y_ub_, tile * sizeof(C));
        if constexpr (kWiden) pipe_.InitBuffer(y_stage_, tile * sizeof(T));
        break;
    }
  }

  __aicore__ inline void Process() {
    for (uint64_t unit = first_; unit < end_;) {
      const Tile tile = Locate(unit);
      copy_in(in_, x_[tile.offset], tile.n);
      if (source_ == YSource::Stream) copy_in(y_in_, y_[tile.column], tile.n);
      Compute(tile);
      copy_out(z_[tile.offset], out_, tile.n);
      unit += tile.units;
    }
  }

 private:
  static constexpr bool kWiden = !std::is_same_v<T, C>;

  __aicore__ inline C Alpha() const {
    if constexpr (std::is_same_v<C, int32_t>) {
      return t_.alpha_int;
    } else {
      return C(t_.alpha);
    }
  }

  __aicore__ inline Tile Locate(uint64_t unit) const {
    Tile tile;
    tile.row = unit / t_.units_per_row;
    tile.column = (unit % t_.units_per_row) * t_.unit_elems;
    tile.offset = tile.row * t_.pitch + tile.column;
    if (t_.units_per_row == 1) {
      const uint64_t left = end_ - unit;
      tile.units = static_cast<uint32_t>(left < t_.tile_units ? left : t_.tile_units);
      tile.n = static_cast<uint32_t>(tile.units * t_.pitch);
    } else {
      const uint64_t left = t_.pitch - tile.column;
      tile.units = 1;
      tile.n = static_cast<uint32_t>(left < t_.unit_elems ? left : t_.unit_elems);
    }
    return tile;
  }

  // Scalar pattern: y is one value, duplicated over a tile once (alpha applied).
  __aicore__ inline void FillScalar() {
    LocalTensor<C> y = y_ub_.Get<C>();
    C value;
    if constexpr (std::is_same_v<C, int32_t>) {
      value = t_.scalar_int;
    } else {
      value = C(t_.scalar);  // exact: the host computes in float unless half holds the value
    }
    Duplicate(y, value, t_.tile_elems);
    if (t_.scale_y != 0) Muls(y, y, Alpha(), t_.tile_elems);
  }

  // Row pattern: the `pitch` elements of y's pattern (a padded row, copied from GM, or y
  // repeated over one period of packed rows, built element by element), in C with alpha
  // applied, replicated once per row of a tile.
  __aicore__ inline void FillPattern() {
    const uint32_t pitch = static_cast<uint32_t>(t_.pitch);
    LocalTensor<T> staged = in_.AllocTensor<T>();
    if (t_.pattern_from_gm != 0) {
      DataCopy(staged, y_, pitch);
    } else {
      for (uint32_t i = 0; i < pitch; ++i) staged.SetValue(i, y_.GetValue(i % t_.cols));
      wait_pipe<HardEvent::S_V>();
    }
    in_.EnQue(staged);
    staged = in_.DeQue<T>();
    LocalTensor<C> y = y_ub_.Get<C>();
    if constexpr (kWiden) {
      Cast(y, staged, RoundMode::CAST_NONE, pitch);
      if (t_.scale_y != 0) Muls(y, y, Alpha(), pitch);
    } else {
      Muls(y, staged, t_.scale_y != 0 ? Alpha() : C(1), pitch);
    }
    for (uint32_t r = 1; r < t_.tile_units; ++r) Muls(y[r * pitch], y, C(1), pitch);  // exact copy
    in_.FreeTensor(staged);
  }

  // Column pattern: y[row] over each row's elements of the tile (alpha applied).
  __aicore__ inline void FillRows(const Tile& tile) {
    LocalTensor<C> y = y_ub_.Get<C>();
    const uint32_t span = tile.units == 1 ? tile.n : static_cast<uint32_t>(t_.pitch);
    for (uint32_t r = 0; r < tile.units; ++r) {
      const T value = y_.GetValue(tile.row + r);
      if constexpr (kWiden) {
        Duplicate(y_stage_.Get<T>()[r * span], value, span);
      } else {
        Duplicate(y[r * span], value, span);
      }
    }
    if constexpr (kWiden) Cast(y, y_stage_.Get<T>(), RoundMode::CAST_NONE, tile.n);
    if (t_.scale_y != 0) Muls(y, y, Alpha(), tile.n);
  }

  __aicore__ inline void Compute(const Tile& tile) {
    const uint32_t n = tile.n;
    LocalTensor<T> x = in_.DeQue<T>();
    LocalTensor<T> z = out_.AllocTensor<T>();
    LocalTensor<T> streamed;
    LocalTensor<C> y;
    if (source_ == YSource::Stream) {
      streamed = y_in_.DeQue<T>();
      if constexpr (kWiden) {
        y = y_wide_.Get<C>();
        Cast(y, streamed, RoundMode::CAST_NONE, n);
      } else {
        y = streamed;
      }
      if (t_.scale_y != 0) Muls(y, y, Alpha(), n);
    } else {
      if (source_ == YSource::PerRow) FillRows(tile);
      y = y_ub_.Get<C>();
    }
    if constexpr (kWiden) {
      LocalTensor<C> wide = x_wide_.Get<C>();
      Cast(wide, x, RoundMode::CAST_NONE, n);
      apply<C>(op_, wide, wide, y, n);
      Cast(z, wide, kNarrowToNearest<T>, n);
    } else {
      apply<C>(op_, z, x, y, n);
    }
    out_.EnQue(z);
    in_.FreeTensor(x);
    if (source_ == YSource::Stream) y_in_.FreeTensor(streamed);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECIN, 1> y_in_;
  TQue<TPosition::VECOUT, 1> out_;
  TBuf<TPosition::VECCALC> x_wide_;
  TBuf<TPosition::VECCALC> y_wide_;
  TBuf<TPosition::VECCALC> y_ub_;
  TBuf<TPosition::VECCALC> y_stage_;
  GlobalTensor<T> x_;
  GlobalTensor<T> y_;
  GlobalTensor<T> z_;
  BinaryTiling t_;
  BinaryOp op_ = BinaryOp::Add;
  YSource source_ = YSource::Stream;
  uint64_t first_ = 0;
  uint64_t end_ = 0;
};

// One launch of the kernel for storage type T computing in C. The half entry computes in float
// instead when the tiling asks (alpha scales y, or a scalar y is not exact in half).
template <typename T, typename C>
__aicore__ inline void run_binary(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling) {
  const auto t = load_tiling<BinaryTiling>(tiling);
  if constexpr (std::is_same_v<T, half> && std::is_same_v<C, half>) {
    if (t.compute_float != 0) {
      run_kernel<BinaryKernel<half, float>>(t, x, y, z);
      return;
    }
  }
  run_kernel<BinaryKernel<T, C>>(t, x, y, z);
}

}  // namespace
}  // namespace kiln::ascend

// One entry per storage dtype, so each compiles only the vector code its dtype needs.
#define KILN_BINARY_RUN kiln::ascend::run_binary
KILN_ASCEND_DEFINE_KERNELS(KILN_BINARY)
