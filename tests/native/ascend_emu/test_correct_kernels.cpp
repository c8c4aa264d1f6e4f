// Correct kernels per API group (copy/add, reduction, cast), checked against host results.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "kernel_operator.h"
#include "tests/native/ascend_emu/harness.h"

using namespace AscendC;

namespace {

struct AddTiling {
  uint32_t total;
  uint32_t per_block;
  uint32_t tile;
};

constexpr int32_t kBufferNum = 2;  // double buffering: copy tile i+1 while computing tile i

// Copies n elements, with DataCopyPad for a length that is not a whole number of 32 B blocks.
template <class T>
__aicore__ inline void copy_in(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t n) {
  if (n * sizeof(T) % 32 == 0) {
    DataCopy(dst, src, n);
  } else {
    DataCopyPad(dst, src, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0},
                DataCopyPadExtParams<T>{false, 0, 0, T(0.0f)});
  }
}

template <class T>
__aicore__ inline void copy_out(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n) {
  if (n * sizeof(T) % 32 == 0) {
    DataCopy(dst, src, n);
  } else {
    DataCopyPad(dst, src, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0});
  }
}

template <class T>
class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddTiling& tiling) {
    const uint32_t start = static_cast<uint32_t>(GetBlockIdx()) * tiling.per_block;
    length_ = start >= tiling.total ? 0 : std::min(tiling.per_block, tiling.total - start);
    tile_ = tiling.tile;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + start, length_);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + start, length_);
    z_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(z) + start, length_);
    pipe_.InitBuffer(in_x_, kBufferNum, tile_ * sizeof(T));
    pipe_.InitBuffer(in_y_, kBufferNum, tile_ * sizeof(T));
    pipe_.InitBuffer(out_z_, kBufferNum, tile_ * sizeof(T));
  }

  __aicore__ inline void Process() {
    const uint32_t tiles = (length_ + tile_ - 1) / tile_;
    for (uint32_t i = 0; i < tiles; ++i) {
      const uint32_t n = std::min(tile_, length_ - i * tile_);
      CopyIn(i, n);
      Compute(n);
      CopyOut(i, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t i, uint32_t n) {
    LocalTensor<T> x = in_x_.AllocTensor<T>();
    LocalTensor<T> y = in_y_.AllocTensor<T>();
    copy_in(x, x_[i * tile_], n);
    copy_in(y, y_[i * tile_], n);
    in_x_.EnQue(x);
    in_y_.EnQue(y);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<T> x = in_x_.DeQue<T>();
    LocalTensor<T> y = in_y_.DeQue<T>();
    LocalTensor<T> z = out_z_.AllocTensor<T>();
    Add(z, x, y, n);
    out_z_.EnQue<T>(z);
    in_x_.FreeTensor(x);
    in_y_.FreeTensor(y);
  }

  __aicore__ inline void CopyOut(uint32_t i, uint32_t n) {
    LocalTensor<T> z = out_z_.DeQue<T>();
    copy_out(z_[i * tile_], z, n);
    out_z_.FreeTensor(z);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_x_, in_y_;
  TQue<TPosition::VECOUT, 1> out_z_;
  GlobalTensor<T> x_, y_, z_;
  uint32_t length_ = 0;
  uint32_t tile_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void emu_add_half(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                   GM_ADDR tiling) {
  const AddTiling t = *reinterpret_cast<__gm__ AddTiling*>(tiling);
  KernelAdd<half> op;
  op.Init(x, y, z, t);
  op.Process();
}

extern "C" __global__ __aicore__ void emu_add_float(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                    GM_ADDR tiling) {
  const AddTiling t = *reinterpret_cast<__gm__ AddTiling*>(tiling);
  KernelAdd<float> op;
  op.Init(x, y, z, t);
  op.Process();
}

// Per-block sum and arg-max of `per_block` elements: out_sum[block], out_max[block] (value) and
// out_index[block]. The inputs of one block fit one UB tile.
extern "C" __global__ __aicore__ void emu_reduce_float(GM_ADDR x, GM_ADDR sums, GM_ADDR maxima,
                                                       GM_ADDR indices, uint32_t per_block) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in;
  TBuf<TPosition::VECCALC> work;
  TBuf<TPosition::VECCALC> result;
  pipe.InitBuffer(in, 1, per_block * sizeof(float));
  pipe.InitBuffer(work, 1024);
  pipe.InitBuffer(result, 64);
  const uint32_t block = static_cast<uint32_t>(GetBlockIdx());
  GlobalTensor<float> x_gm, sum_gm, max_gm;
  GlobalTensor<int32_t> index_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + block * per_block, per_block);
  sum_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(sums), GetBlockNum());
  max_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(maxima), GetBlockNum());
  index_gm.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(indices), GetBlockNum());

  LocalTensor<float> values = in.AllocTensor<float>();
  DataCopy(values, x_gm, per_block);
  in.EnQue(values);
  values = in.DeQue<float>();
  LocalTensor<float> work_tensor = work.Get<float>();
  LocalTensor<float> out = result.Get<float>();
  ReduceSum(out, values, work_tensor, per_block);
  ReduceMax(out[8], values, work_tensor, per_block, true);
  SetFlag<HardEvent::V_S>(EVENT_ID0);
  WaitFlag<HardEvent::V_S>(EVENT_ID0);
  sum_gm.SetValue(block, out.GetValue(0));
  max_gm.SetValue(block, out.GetValue(8));
  index_gm.SetValue(block, static_cast<int32_t>(out[8].ReinterpretCast<uint32_t>().GetValue(1)));
  in.FreeTensor(values);
}

// bf16 -> float, y = x * scale + 1, float -> bf16 (nearest even), plus float -> int32 (round).
extern "C" __global__ __aicore__ void emu_cast_bf16(GM_ADDR x, GM_ADDR y, GM_ADDR rounded,
                                                    uint32_t n, float scale) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in;
  TQue<TPosition::VECOUT, 1> out;
  TQue<TPosition::VECOUT, 1> out_int;
  TBuf<TPosition::VECCALC> wide;
  pipe.InitBuffer(in, 1, n * sizeof(bfloat16_t));
  pipe.InitBuffer(out, 1, n * sizeof(bfloat16_t));
  pipe.InitBuffer(out_int, 1, n * sizeof(int32_t));
  pipe.InitBuffer(wide, n * sizeof(float));
  GlobalTensor<bfloat16_t> x_gm, y_gm;
  GlobalTensor<int32_t> rounded_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ bfloat16_t*>(x), n);
  y_gm.SetGlobalBuffer(reinterpret_cast<__gm__ bfloat16_t*>(y), n);
  rounded_gm.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(rounded), n);

  LocalTensor<bfloat16_t> x_local = in.AllocTensor<bfloat16_t>();
  DataCopy(x_local, x_gm, n);
  in.EnQue(x_local);
  x_local = in.DeQue<bfloat16_t>();
  LocalTensor<float> f = wide.Get<float>();
  Cast(f, x_local, RoundMode::CAST_NONE, n);
  Muls(f, f, scale, n);
  Adds(f, f, 1.0f, n);
  LocalTensor<bfloat16_t> y_local = out.AllocTensor<bfloat16_t>();
  Cast(y_local, f, RoundMode::CAST_RINT, n);
  LocalTensor<int32_t> r_local = out_int.AllocTensor<int32_t>();
  Cast(r_local, f, RoundMode::CAST_ROUND, n);
  out.EnQue(y_local);
  out_int.EnQue(r_local);
  in.FreeTensor(x_local);
  y_local = out.DeQue<bfloat16_t>();
  DataCopy(y_gm, y_local, n);
  out.FreeTensor(y_local);
  r_local = out_int.DeQue<int32_t>();
  DataCopy(rounded_gm, r_local, n);
  out_int.FreeTensor(r_local);
}

// Leaky ReLU through Compare + Select: y = x > 0 ? x : slope * x, for n = 64 floats.
extern "C" __global__ __aicore__ void emu_leaky_relu(GM_ADDR x, GM_ADDR y, float slope) {
  constexpr uint32_t n = 64;
  TPipe pipe;
  TBuf<TPosition::VECCALC> in, scaled, zeros, mask, out;
  pipe.InitBuffer(in, n * sizeof(float));
  pipe.InitBuffer(scaled, n * sizeof(float));
  pipe.InitBuffer(zeros, n * sizeof(float));
  pipe.InitBuffer(mask, n / 8);
  pipe.InitBuffer(out, n * sizeof(float));
  GlobalTensor<float> x_gm, y_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), n);
  y_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), n);
  LocalTensor<float> t = in.Get<float>();
  DataCopy(t, x_gm, n);
  emu_test::sync_pipes<HardEvent::MTE2_V>();
  Muls(scaled.Get<float>(), t, slope, n);
  Duplicate(zeros.Get<float>(), 0.0f, n);
  Compare(mask.Get<uint8_t>(), t, zeros.Get<float>(), CMPMODE::GT, n);
  Select(out.Get<float>(), mask.Get<uint8_t>(), t, scaled.Get<float>(),
         SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
  emu_test::sync_pipes<HardEvent::V_MTE3>();
  DataCopy(y_gm, out.Get<float>(), n);
}

// A 4 x 16 float window of a 4 x 32 matrix with strided DataCopy, then 3 rows of 5 floats (row
// stride 8) padded to 8 with -1 by DataCopyPad, written back densely (15 floats).
extern "C" __global__ __aicore__ void emu_strided_copies(GM_ADDR matrix, GM_ADDR window,
                                                         GM_ADDR rows, GM_ADDR padded,
                                                         GM_ADDR dense) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, 64 * sizeof(float));
  pipe.InitBuffer(b, 24 * sizeof(float));
  GlobalTensor<float> matrix_gm, window_gm, rows_gm, padded_gm, dense_gm;
  matrix_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(matrix), 4 * 32);
  window_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(window), 4 * 16);
  rows_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(rows), 3 * 8);
  padded_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(padded), 3 * 8);
  dense_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(dense), 3 * 5);
  LocalTensor<float> ta = a.Get<float>();
  DataCopy(ta, matrix_gm[8], DataCopyParams{4, 2, 2, 0});  // 64 B rows, 64 B gaps in GM
  emu_test::sync_pipes<HardEvent::MTE2_MTE3>();
  DataCopy(window_gm, ta, 64);
  LocalTensor<float> tb = b.Get<float>();
  DataCopyPad(tb, rows_gm, DataCopyExtParams{3, 5 * sizeof(float), 3 * sizeof(float), 0, 0},
              DataCopyPadExtParams<float>{true, 0, 3, -1.0f});
  emu_test::sync_pipes<HardEvent::MTE2_MTE3>();
  DataCopy(padded_gm, tb, 24);
  DataCopyPad(dense_gm, tb, DataCopyExtParams{3, 5 * sizeof(float), 0, 0, 0});
}

// After TPipe::Reset the UB is planned again; tensors from before are gone.
extern "C" __global__ __aicore__ void emu_pipe_reset(GM_ADDR x, uint32_t use_stale) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  TBuf<TPosition::VECCALC> big;
  pipe.InitBuffer(q, 2, 100 * 1024 / 2);
  LocalTensor<float> old = q.AllocTensor<float>();
  pipe.Reset();
  pipe.InitBuffer(big, 150 * 1024);  // fits only because Reset released the queue
  LocalTensor<float> t = big.Get<float>();
  Duplicate(t, 3.0f, 64);
  if (use_stale != 0) Duplicate(old, 1.0f, 64);
  (void)x;
}

namespace emu_test {
namespace {

uint32_t round_up(uint32_t value, uint32_t unit) { return (value + unit - 1) / unit * unit; }

TEST(EmuCorrectKernelTest, AddHalfWithAPaddedTailAndItsLaunchReport) {
  const uint32_t total = 100003;  // odd: the last block's tail needs DataCopyPad
  const uint32_t blocks = 48;
  AddTiling tiling{total, round_up((total + blocks - 1) / blocks, 16), 1024};
  std::vector<half> hx(total), hy(total);
  for (uint32_t i = 0; i < total; ++i) {
    hx[i] = half(static_cast<float>(i % 1000) * 0.125f);
    hy[i] = half(1.0f / static_cast<float>(1 + i % 7));
  }
  DevicePool pool;
  half* x = pool.upload(hx);
  half* y = pool.upload(hy);
  half* z = pool.alloc<half>(total);
  uint8_t* t = pool.upload_struct(tiling);
  const auto outcome = KILN_ASCEND_LAUNCH(emu_add_half, blocks, nullptr, x, y, z, t);
  EXPECT_LAUNCH_OK(outcome);
  const std::vector<half> hz = DevicePool::download(z, total);
  int mismatches = 0;
  for (uint32_t i = 0; i < total; ++i) {
    if (hz[i].x != half(static_cast<float>(hx[i]) + static_cast<float>(hy[i])).x) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
  const auto& report = outcome.report;
  EXPECT_EQ(report.kernel, "emu_add_half");
  EXPECT_EQ(report.blocks, blocks);
  EXPECT_EQ(report.ub_high_water_bytes, 3 * kBufferNum * 1024 * sizeof(half));
  EXPECT_EQ(report.gm_to_ub_bytes, 2ull * total * sizeof(half));
  EXPECT_EQ(report.ub_to_gm_bytes, 1ull * total * sizeof(half));
  uint64_t tiles = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    const uint32_t start = b * tiling.per_block;
    const uint32_t length = start >= total ? 0 : std::min(tiling.per_block, total - start);
    tiles += (length + tiling.tile - 1) / tiling.tile;
  }
  EXPECT_EQ(report.vector_instructions, tiles);
  EXPECT_EQ(report.cube_instructions, 0);
  ASSERT_FALSE(kiln::ascend::emu::launch_history().empty());
  EXPECT_EQ(kiln::ascend::emu::launch_history().back().kernel, "emu_add_half");
}

// 310P has no DataCopyPad: a host that pads to whole 32 B blocks runs the same kernel there.
TEST(EmuCorrectKernelTest, AddFloatOn310PWithHostPadding) {
  SocScope scope("Ascend310P3");
  const uint32_t total = 1 << 20;
  const uint32_t blocks = 8;
  AddTiling tiling{total, total / blocks, 8192};
  std::vector<float> hx(total), hy(total);
  for (uint32_t i = 0; i < total; ++i) {
    hx[i] = static_cast<float>(i) * 0.5f;
    hy[i] = 3.0f - static_cast<float>(i % 5);
  }
  DevicePool pool;
  float* x = pool.upload(hx);
  float* y = pool.upload(hy);
  float* z = pool.alloc<float>(total);
  uint8_t* t = pool.upload_struct(tiling);
  const auto start = std::chrono::steady_clock::now();
  const auto outcome = KILN_ASCEND_LAUNCH(emu_add_float, blocks, nullptr, x, y, z, t);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LAUNCH_OK(outcome);
  std::printf("1M-element float add on the emulator: %.3f s\n", seconds);
  const std::vector<float> hz = DevicePool::download(z, total);
  int mismatches = 0;
  for (uint32_t i = 0; i < total; ++i) mismatches += hz[i] != hx[i] + hy[i];
  EXPECT_EQ(mismatches, 0);
}

TEST(EmuCorrectKernelTest, ReduceSumAndArgMaxPerBlock) {
  const uint32_t blocks = 4;
  const uint32_t per_block = 1000;  // 4000 B: a whole number of 32 B blocks
  std::vector<float> hx(blocks * per_block);
  for (uint32_t i = 0; i < hx.size(); ++i) hx[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  DevicePool pool;
  float* x = pool.upload(hx);
  float* sums = pool.alloc<float>(blocks);
  float* maxima = pool.alloc<float>(blocks);
  int32_t* indices = pool.alloc<int32_t>(blocks);
  const auto outcome =
      KILN_ASCEND_LAUNCH(emu_reduce_float, blocks, nullptr, x, sums, maxima, indices, per_block);
  EXPECT_LAUNCH_OK(outcome);
  const auto got_sums = DevicePool::download(sums, blocks);
  const auto got_max = DevicePool::download(maxima, blocks);
  const auto got_index = DevicePool::download(indices, blocks);
  for (uint32_t b = 0; b < blocks; ++b) {
    SCOPED_TRACE(testing::Message() << "block " << b);
    const float* row = hx.data() + b * per_block;
    double sum = 0;
    for (uint32_t i = 0; i < per_block; ++i) sum += row[i];
    const auto best = std::max_element(row, row + per_block) - row;
    EXPECT_LE(std::fabs(got_sums[b] - sum), 1e-3);  // integers: every float sum is exact
    EXPECT_EQ(got_max[b], row[best]);
    EXPECT_EQ(got_index[b], best);
  }
  EXPECT_EQ(outcome.report.vector_instructions, 2 * blocks);
}

TEST(EmuCorrectKernelTest, CastBFloat16ThroughFloatAndToInt32) {
  const uint32_t n = 48;  // 96 B of bfloat16: whole 32 B blocks
  std::vector<bfloat16_t> hx(n);
  for (uint32_t i = 0; i < n; ++i) hx[i] = bfloat16_t(static_cast<float>(i) * 1.3f - 20.0f);
  DevicePool pool;
  bfloat16_t* x = pool.upload(hx);
  bfloat16_t* y = pool.alloc<bfloat16_t>(n);
  int32_t* rounded = pool.alloc<int32_t>(n);
  const float scale = 2.5f;
  const auto outcome = KILN_ASCEND_LAUNCH(emu_cast_bf16, 1, nullptr, x, y, rounded, n, scale);
  EXPECT_LAUNCH_OK(outcome);
  const auto hy = DevicePool::download(y, n);
  const auto hr = DevicePool::download(rounded, n);
  int mismatches = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(hx[i]) * scale + 1.0f;  // rounded once per operation
    if (hy[i].x != bfloat16_t(f).x) ++mismatches;
    if (hr[i] != static_cast<int32_t>(std::round(f))) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(outcome.report.vector_instructions, 5);
}

TEST(EmuCorrectKernelTest, StridedAndPaddedCopies) {
  std::vector<float> matrix(4 * 32), rows(3 * 8);
  for (uint32_t i = 0; i < matrix.size(); ++i) matrix[i] = static_cast<float>(i);
  for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = 100.0f + static_cast<float>(i);
  DevicePool pool;
  float* m = pool.upload(matrix);
  float* window = pool.alloc<float>(64);
  float* r = pool.upload(rows);
  float* padded = pool.alloc<float>(24);
  float* dense = pool.alloc<float>(15);
  const auto outcome =
      KILN_ASCEND_LAUNCH(emu_strided_copies, 1, nullptr, m, window, r, padded, dense);
  EXPECT_LAUNCH_OK(outcome);
  const auto hw = DevicePool::download(window, 64);
  const auto hp = DevicePool::download(padded, 24);
  const auto hd = DevicePool::download(dense, 15);
  int mismatches = 0;
  for (uint32_t row = 0; row < 4; ++row) {
    for (uint32_t col = 0; col < 16; ++col)
      mismatches += hw[row * 16 + col] != matrix[row * 32 + 8 + col];
  }
  for (uint32_t row = 0; row < 3; ++row) {
    for (uint32_t col = 0; col < 8; ++col) {
      mismatches += hp[row * 8 + col] != (col < 5 ? rows[row * 8 + col] : -1.0f);
    }
    for (uint32_t col = 0; col < 5; ++col) mismatches += hd[row * 5 + col] != rows[row * 8 + col];
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(outcome.report.gm_to_ub_bytes, 4 * 64 + 3 * 20);
  EXPECT_EQ(outcome.report.ub_to_gm_bytes, 4 * 64 + 24 * 4 + 3 * 20);
}

TEST(EmuCorrectKernelTest, PipeResetReleasesTheUbAndStaleTensors) {
  DevicePool pool;
  uint8_t* x = pool.alloc<uint8_t>(32);
  const uint32_t fresh = 0;
  const auto outcome = KILN_ASCEND_LAUNCH(emu_pipe_reset, 2, nullptr, x, fresh);
  EXPECT_LAUNCH_OK(outcome);
  EXPECT_EQ(outcome.report.ub_high_water_bytes, 150 * 1024);
  const uint32_t stale = 1;
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_pipe_reset, 1, nullptr, x, stale),
                      "emu_pipe_reset (block 0)",
                      "Duplicate dst: uses TQue<VECIN>#0 buffer 0 after TPipe::Reset released it");
}

TEST(EmuCorrectKernelTest, CompareAndSelectComputeLeakyRelu) {
  std::vector<float> hx(64);
  for (uint32_t i = 0; i < 64; ++i) hx[i] = static_cast<float>(i) - 31.5f;
  DevicePool pool;
  float* x = pool.upload(hx);
  float* y = pool.alloc<float>(64);
  const float slope = 0.25f;
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_leaky_relu, 1, nullptr, x, y, slope));
  const auto hy = DevicePool::download(y, 64);
  int mismatches = 0;
  for (uint32_t i = 0; i < 64; ++i) mismatches += hy[i] != (hx[i] > 0 ? hx[i] : slope * hx[i]);
  EXPECT_EQ(mismatches, 0);
}

}  // namespace

}  // namespace emu_test
