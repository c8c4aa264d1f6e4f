// Broken kernels for rules 5-7: UB bounds and partial overlap, GM bounds, cross-block writes.
#include <cstdint>
#include <vector>

#include "kernel_operator.h"
#include "tests/native/ascend_emu/harness.h"

using namespace AscendC;

// Rule 5: a vector op of 80 floats on 64-float buffers.
extern "C" __global__ __aicore__ void emu_ub_out_of_bounds(GM_ADDR x) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in;
  TQue<TPosition::VECOUT, 1> out;
  pipe.InitBuffer(in, 1, 64 * sizeof(float));
  pipe.InitBuffer(out, 1, 64 * sizeof(float));
  (void)x;
  LocalTensor<float> a = in.AllocTensor<float>();
  LocalTensor<float> b = out.AllocTensor<float>();
  Duplicate(a, 1.0f, 64);
  Relu(b, a, 80);
}

// Rule 5: dst starts 8 elements (32 B) into src: aligned, but a partial overlap.
extern "C" __global__ __aicore__ void emu_partial_overlap(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 256 * sizeof(float));
  (void)x;
  LocalTensor<float> a = buf.Get<float>();
  Duplicate(a, 2.0f, 256);
  Add(a, a, a[128], 64);  // in place: fine
  Add(a[8], a, a[128], 64);
}

// Reductions may write into the first element of their input (work aliasing src is fine), but
// a work tensor that starts inside src overlaps it partially.
extern "C" __global__ __aicore__ void emu_reduce_overlap(GM_ADDR x, GM_ADDR out,
                                                         uint32_t work_offset) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 512 * sizeof(half));
  GlobalTensor<half> x_gm, out_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), 384);
  out_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(out), 16);
  LocalTensor<half> t = buf.Get<half>();
  DataCopy(t, x_gm, 384);
  emu_test::sync_pipes<HardEvent::MTE2_V>();
  ReduceMin(t, t, t[work_offset], 384, true);
  emu_test::sync_pipes<HardEvent::V_MTE3>();
  DataCopy(out_gm, t, 16);
}

// Rule 6: each block reads 64 floats at element 64 of a 100-element GlobalTensor.
extern "C" __global__ __aicore__ void emu_gm_out_of_range(GM_ADDR x, uint32_t size,
                                                          uint32_t offset) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 64 * sizeof(float));
  GlobalTensor<float> x_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), size);
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, x_gm[offset], 64);
}

// Rule 6: a scalar store one past the SetGlobalBuffer range.
extern "C" __global__ __aicore__ void emu_gm_set_value(GM_ADDR z) {
  GlobalTensor<int32_t> z_gm;
  z_gm.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(z), 16);
  for (uint32_t i = 0; i <= 16; ++i) z_gm.SetValue(i, static_cast<int32_t>(i));
}

// Rule 7: block b writes 64 floats at element 32 * b, so neighbouring blocks overlap by 32.
extern "C" __global__ __aicore__ void emu_overlapping_writes(GM_ADDR z) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> out;
  pipe.InitBuffer(out, 1, 64 * sizeof(float));
  GlobalTensor<float> z_gm;
  z_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z), 32 * (GetBlockNum() + 1));
  LocalTensor<float> t = out.AllocTensor<float>();
  Duplicate(t, static_cast<float>(GetBlockIdx()), 64);
  out.EnQue(t);
  t = out.DeQue<float>();
  DataCopy(z_gm[32 * GetBlockIdx()], t, 64);
  out.FreeTensor(t);
}

namespace emu_test {
namespace {

TEST(EmuBoundsRuleTest, UbAccessOutOfBounds) {
  DevicePool pool;
  float* x = pool.alloc<float>(64);
  EXPECT_LAUNCH_FAILS(
      KILN_ASCEND_LAUNCH(emu_ub_out_of_bounds, 1, nullptr, x), "emu_ub_out_of_bounds (block 0)",
      "Relu dst: elements [0, 80) of TQue<VECOUT>#1 buffer 0 are bytes [0, 320) of TQue<VECOUT>#1 "
      "buffer 0",
      "which has 256 B: UB access out of bounds");
}

TEST(EmuBoundsRuleTest, PartialOverlapOfVectorOperands) {
  DevicePool pool;
  float* x = pool.alloc<float>(64);
  EXPECT_LAUNCH_FAILS(
      KILN_ASCEND_LAUNCH(emu_partial_overlap, 1, nullptr, x), "emu_partial_overlap (block 0)",
      "Add: dst (UB bytes [32, 288) in TBuf<VECCALC>#0) partially overlaps src0 (UB bytes "
      "[0, 256) in TBuf<VECCALC>#0)");
}

TEST(EmuBoundsRuleTest, GmAccessOutsideTheGlobalTensorRange) {
  DevicePool pool;
  float* x = pool.alloc<float>(200);
  const uint32_t size = 100;
  const uint32_t offset = 64;
  EXPECT_LAUNCH_FAILS(
      KILN_ASCEND_LAUNCH(emu_gm_out_of_range, 2, nullptr, x, size, offset),
      "emu_gm_out_of_range (block ",
      "DataCopy GM->UB reads elements [64, 128) of a GlobalTensor whose SetGlobalBuffer "
      "range is 100 elements (it starts at `x` + 0 B): GM access out of bounds");
  const uint32_t ok_offset = 32;
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_gm_out_of_range, 2, nullptr, x, size, ok_offset));
}

TEST(EmuBoundsRuleTest, GmAccessPastTheDeviceAllocation) {
  DevicePool pool;
  float* x = pool.alloc<float>(100);
  const uint32_t size = 1000;  // the host promised more than it allocated
  const uint32_t offset = 64;
  EXPECT_LAUNCH_FAILS(
      KILN_ASCEND_LAUNCH(emu_gm_out_of_range, 1, nullptr, x, size, offset),
      "emu_gm_out_of_range (block 0)",
      "DataCopy GM->UB reads 256 B at `x` + 256 B, running 112 B past the end of its 400 B "
      "device allocation: outside any live device_malloc allocation");
  std::vector<float> host(1000);
  float* host_x = host.data();
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_gm_out_of_range, 1, nullptr, host_x, size, offset),
                      "emu_gm_out_of_range (block 0)", "at `host_x` + 256 B",
                      "outside any live device_malloc allocation (a host pointer");
}

TEST(EmuBoundsRuleTest, GmSetValuePastTheRange) {
  DevicePool pool;
  int32_t* z = pool.alloc<int32_t>(32);
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_gm_set_value, 1, nullptr, z),
                      "emu_gm_set_value (block 0)",
                      "GlobalTensor::SetValue writes elements [16, 17) of a GlobalTensor whose "
                      "SetGlobalBuffer range is 16 elements",
                      "GM access out of bounds");
  // What a failed launch wrote before the violation stays in device memory.
  EXPECT_EQ(DevicePool::download(z, 16)[15], 15);
}

TEST(EmuBoundsRuleTest, OverlappingGmWritesBetweenBlocks) {
  const uint64_t previous = kiln::ascend::emu::seed();
  kiln::ascend::emu::set_seed(1234);
  DevicePool pool;
  float* z = pool.alloc<float>(32 * 9);
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_overlapping_writes, 8, nullptr, z),
                      "emu_overlapping_writes: ", "blocks 0 and 1 both write 128 B at `z` + 128 B",
                      "overlapping GM writes between blocks", "seed 0x4d2");
  kiln::ascend::emu::set_seed(previous);
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_overlapping_writes, 1, nullptr, z));
}

TEST(EmuBoundsRuleTest, ReductionWorkTensorInsideItsSource) {
  std::vector<half> hx(384);
  for (uint32_t i = 0; i < hx.size(); ++i) hx[i] = half(static_cast<float>((i * 53) % 384) - 7.0f);
  DevicePool pool;
  half* x = pool.upload(hx);
  half* out = pool.alloc<half>(16);
  const uint32_t in_place = 0;
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_reduce_overlap, 1, nullptr, x, out, in_place));
  const auto result = DevicePool::download(out, 2);
  uint32_t best = 0;
  for (uint32_t i = 1; i < hx.size(); ++i)
    best = static_cast<float>(hx[i]) < static_cast<float>(hx[best]) ? i : best;
  EXPECT_EQ(static_cast<float>(result[0]), static_cast<float>(hx[best]));
  EXPECT_EQ(result[1].x, best);  // the index, as uint16_t bits
  const uint32_t inside = 16;
  EXPECT_LAUNCH_FAILS(
      KILN_ASCEND_LAUNCH(emu_reduce_overlap, 1, nullptr, x, out, inside),
      "emu_reduce_overlap (block 0)",
      "ReduceMin: src (UB bytes [0, 768)) partially overlaps work (UB bytes [32, 64))");
}

}  // namespace

}  // namespace emu_test
