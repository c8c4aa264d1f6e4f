// Broken kernels for rules 1-3: SoC profiles, UB capacity and alignment, DataCopy lengths.
#include <cstdint>
#include <vector>

#include "kernel_operator.h"
#include "tests/native/ascend_emu/harness.h"

using namespace AscendC;

// Each block copies its n halves through one queue.
extern "C" __global__ __aicore__ void emu_copy_half(GM_ADDR x, GM_ADDR z, uint32_t n) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in;
  pipe.InitBuffer(in, 1, 4096);
  GlobalTensor<half> x_gm, z_gm;
  const uint64_t start = static_cast<uint64_t>(GetBlockIdx()) * n;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x) + start, n);
  z_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(z) + start, n);
  LocalTensor<half> t = in.AllocTensor<half>();
  DataCopy(t, x_gm, n);
  in.EnQue(t);
  t = in.DeQue<half>();
  emu_test::sync_pipes<HardEvent::MTE2_MTE3>();  // a VECIN queue orders MTE2 before V only
  DataCopy(z_gm, t, n);
  in.FreeTensor(t);
}

// Rule 1: bfloat16 on a SoC without it.
extern "C" __global__ __aicore__ void emu_copy_bf16(GM_ADDR x, GM_ADDR z) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 64);
  GlobalTensor<bfloat16_t> x_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ bfloat16_t*>(x), 32);
  (void)z;
  LocalTensor<bfloat16_t> t = buf.Get<bfloat16_t>();
  DataCopy(t, x_gm, 32);
}

// Rule 1: DataCopyPad on a SoC without it.
extern "C" __global__ __aicore__ void emu_pad_copy(GM_ADDR x, GM_ADDR z) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 64);
  GlobalTensor<float> x_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 5);
  (void)z;
  LocalTensor<float> t = buf.Get<float>();
  DataCopyPad(t, x_gm, DataCopyExtParams{1, 20, 0, 0, 0},
              DataCopyPadExtParams<float>{true, 0, 3, 0.0f});
}

// Rule 2: 2 x 100 KiB of UB.
extern "C" __global__ __aicore__ void emu_ub_overflow(GM_ADDR x) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> small;
  TQue<TPosition::VECIN, 1> big;
  pipe.InitBuffer(small, 1, 1000);
  pipe.InitBuffer(big, 2, 100 * 1024);
  (void)x;
}

// Rule 2: a vector operand sliced 3 elements (6 B) into its buffer.
extern "C" __global__ __aicore__ void emu_misaligned_slice(GM_ADDR x) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in;
  TBuf<TPosition::VECCALC> out;
  pipe.InitBuffer(in, 1, 512);
  pipe.InitBuffer(out, 512);
  GlobalTensor<half> x_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), 256);
  LocalTensor<half> t = in.AllocTensor<half>();
  DataCopy(t, x_gm, 256);
  LocalTensor<half> o = out.Get<half>();
  Add(o, t[3], t[16], 64);
}

// Rule 3: a float GlobalTensor that starts 2 bytes into the argument.
extern "C" __global__ __aicore__ void emu_misaligned_gm(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 256);
  GlobalTensor<float> x_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x + 2), 32);
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, x_gm, 32);
}

namespace emu_test {
namespace {

TEST(EmuSocAndCopyRuleTest, BlockDimZero) {
  DevicePool pool;
  half* x = pool.alloc<half>(64);
  half* z = pool.alloc<half>(64);
  const uint32_t n = 64;
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_copy_half, 0, nullptr, x, z, n), "emu_copy_half",
                      "block_dim is 0");
}

// More blocks than cores is fine: the device runs them in rounds.
TEST(EmuSocAndCopyRuleTest, BlockDimAboveTheCoreCountRunsInRounds) {
  const uint32_t blocks = 100;
  const uint32_t n = 64;
  std::vector<half> hx(blocks * n);
  for (uint32_t i = 0; i < hx.size(); ++i) hx[i] = half(static_cast<float>(i % 2048));
  DevicePool pool;
  half* x = pool.upload(hx);
  half* z = pool.alloc<half>(blocks * n);
  const auto outcome = KILN_ASCEND_LAUNCH(emu_copy_half, blocks, nullptr, x, z, n);
  EXPECT_LAUNCH_OK(outcome);
  EXPECT_EQ(outcome.report.blocks, blocks);
  const auto hz = DevicePool::download(z, blocks * n);
  int mismatches = 0;
  for (uint32_t i = 0; i < hz.size(); ++i) mismatches += hz[i].x != hx[i].x;
  EXPECT_EQ(mismatches, 0);
}

TEST(EmuSocAndCopyRuleTest, BFloat16On310P) {
  SocScope scope("Ascend310P");
  DevicePool pool;
  bfloat16_t* x = pool.alloc<bfloat16_t>(32);
  bfloat16_t* z = pool.alloc<bfloat16_t>(32);
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_copy_bf16, 1, nullptr, x, z),
                      "emu_copy_bf16 (block 0)",
                      "TBuf::Get: bfloat16_t is not supported on Ascend310P");
}

TEST(EmuSocAndCopyRuleTest, DataCopyPadOn310P) {
  DevicePool pool;
  float* x = pool.alloc<float>(8);
  float* z = pool.alloc<float>(8);
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_pad_copy, 1, nullptr, x, z));
  SocScope scope("Ascend310P");
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_pad_copy, 1, nullptr, x, z), "emu_pad_copy (block 0)",
                      "DataCopyPad is not available on Ascend310P", "pad the tensor on the host");
}

TEST(EmuSocAndCopyRuleTest, SocProfiles) {
  EXPECT_TRUE(kiln::ascend::emu::set_soc("Ascend910B3"));
  EXPECT_EQ(kiln::ascend::emu::soc().soc, kiln::ascend::emu::Soc::Ascend910B);
  EXPECT_EQ(kiln::ascend::emu::soc().ub_bytes, 192 * 1024);
  EXPECT_EQ(kiln::ascend::emu::soc().vector_cores, 48);
  EXPECT_FALSE(kiln::ascend::emu::set_soc("Ascend910A"));
  EXPECT_EQ(kiln::ascend::emu::soc().soc, kiln::ascend::emu::Soc::Ascend910B);
  EXPECT_TRUE(kiln::ascend::emu::set_soc("ascend310p3"));
  EXPECT_EQ(kiln::ascend::emu::soc().ub_usable_bytes, 248 * 1024);
  EXPECT_FALSE(kiln::ascend::emu::soc().has_bfloat16);
  EXPECT_FALSE(kiln::ascend::emu::soc().has_data_copy_pad);
  EXPECT_TRUE(kiln::ascend::emu::set_soc("Ascend910B"));
}

TEST(EmuSocAndCopyRuleTest, UbCapacity) {
  DevicePool pool;
  uint8_t* x = pool.alloc<uint8_t>(32);
  EXPECT_LAUNCH_FAILS(
      KILN_ASCEND_LAUNCH(emu_ub_overflow, 3, nullptr, x), "emu_ub_overflow (block ",
      "TPipe::InitBuffer of TQue<VECIN>#1 (2 buffers of 102400 B)",
      "UB use would reach 205824 B, over the 188416 B a TPipe can use on Ascend910B",
      "UB capacity exceeded");
  // The same plan fits the 248 KiB a TPipe gets on 310P.
  SocScope scope("Ascend310P");
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_ub_overflow, 3, nullptr, x));
}

TEST(EmuSocAndCopyRuleTest, MisalignedUbSlice) {
  DevicePool pool;
  half* x = pool.alloc<half>(256);
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_misaligned_slice, 1, nullptr, x),
                      "emu_misaligned_slice", "Add src0",
                      "TQue<VECIN>#0 buffer 0 + 6 B (element 3)", "not 32-byte aligned");
}

TEST(EmuSocAndCopyRuleTest, DataCopyLengthNotAWholeNumberOf32ByteBlocks) {
  DevicePool pool;
  half* x = pool.alloc<half>(64);
  half* z = pool.alloc<half>(64);
  const uint32_t n = 35;  // 70 B
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_copy_half, 1, nullptr, x, z, n),
                      "emu_copy_half (block 0)",
                      "DataCopy GM->UB of 70 B from `x` + 0 B into TQue<VECIN>#0 buffer 0",
                      "length is not a multiple of 32 B (the device silently truncates it to 64 B)",
                      "use DataCopyPad or pad on the host");
  SocScope scope("Ascend310P");
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_copy_half, 1, nullptr, x, z, n), "emu_copy_half",
                      "pad on the host (Ascend310P has no DataCopyPad)");
}

TEST(EmuSocAndCopyRuleTest, MisalignedGmAddress) {
  DevicePool pool;
  uint8_t* x = pool.alloc<uint8_t>(256);
  EXPECT_LAUNCH_FAILS(
      KILN_ASCEND_LAUNCH(emu_misaligned_gm, 1, nullptr, x), "emu_misaligned_gm (block 0)",
      "DataCopy GM->UB: GM address `x` + 2 B is not aligned to the element size (4 B)",
      "Kiln's policy (the device itself takes any GM address)");
}

}  // namespace

}  // namespace emu_test
