// Broken kernels for the run-time rules learned from CANN 8.1.RC1's headers: Cast round modes per
// SoC, the DMA instructions' field widths. Each test launches the broken form and the allowed one.
#include <cstdint>
#include <vector>

#include "kernel_operator.h"
#include "tests/native/ascend_emu/harness.h"

using namespace AscendC;

// Casts 64 elements of scratch UB from S to D in round mode `mode`.
template <class D, class S>
__global__ __aicore__ void emu_cast_pair(GM_ADDR x, uint32_t mode) {
  (void)x;
  TPipe pipe;
  TBuf<TPosition::VECCALC> src, dst;
  pipe.InitBuffer(src, 64 * sizeof(S));
  pipe.InitBuffer(dst, 64 * sizeof(D));
  LocalTensor<S> s = src.Get<S>();
  Duplicate(s, S(1.0f), 64);
  Cast(dst.Get<D>(), s, static_cast<RoundMode>(mode), 64);
}

constexpr auto emu_cast_float_to_half = &emu_cast_pair<half, float>;
constexpr auto emu_cast_half_to_int32 = &emu_cast_pair<int32_t, half>;
constexpr auto emu_cast_float_to_float = &emu_cast_pair<float, float>;
constexpr auto emu_cast_int32_to_float = &emu_cast_pair<float, int32_t>;

// Casts 64 int8_t copied in from x to half in round mode `mode` (Duplicate takes no int8_t).
extern "C" __global__ __aicore__ void emu_cast_int8_to_half(GM_ADDR x, uint32_t mode) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> src, dst;
  pipe.InitBuffer(src, 64);
  pipe.InitBuffer(dst, 64 * sizeof(half));
  GlobalTensor<int8_t> gx;
  gx.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t*>(x), 64);
  LocalTensor<int8_t> s = src.Get<int8_t>();
  DataCopy(s, gx, 64);
  const int32_t id = static_cast<int32_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
  SetFlag<HardEvent::MTE2_V>(id);
  WaitFlag<HardEvent::MTE2_V>(id);
  Cast(dst.Get<half>(), s, static_cast<RoundMode>(mode), 64);
}

// `count` blocks of 32 B, GM -> UB, with DataCopyParams.
extern "C" __global__ __aicore__ void emu_copy_blocks(GM_ADDR x, uint32_t count) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, count * 32);
  GlobalTensor<float> x_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), count * 8);
  DataCopy(buf.Get<float>(), x_gm, DataCopyParams(static_cast<uint16_t>(count), 1, 0, 0));
}

// `count` floats GM -> UB in one contiguous DataCopy.
extern "C" __global__ __aicore__ void emu_copy_count(GM_ADDR x, uint32_t count) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 256);
  GlobalTensor<float> x_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), count);
  DataCopy(buf.Get<float>(), x_gm, count);
}

// One DataCopyPad block of `bytes`, GM -> UB.
extern "C" __global__ __aicore__ void emu_pad_block(GM_ADDR x, uint32_t bytes) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 64);
  GlobalTensor<uint8_t> x_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(x), bytes);
  DataCopyPad(buf.Get<uint8_t>(), x_gm, DataCopyExtParams{1, bytes, 0, 0, 0},
              DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});
}

// Compare and CompareScalar of `count` floats against themselves and zero.
extern "C" __global__ __aicore__ void emu_compare_count(GM_ADDR x, uint32_t count,
                                                        uint32_t scalar) {
  (void)x;
  TPipe pipe;
  TBuf<TPosition::VECCALC> data, mask;
  pipe.InitBuffer(data, 256 * sizeof(float));
  pipe.InitBuffer(mask, 256 / 8);
  LocalTensor<float> t = data.Get<float>();
  Duplicate(t, 1.0f, 256);
  if (scalar != 0) {
    CompareScalar(mask.Get<uint8_t>(), t, 0.0f, CMPMODE::GT, count);
  } else {
    Compare(mask.Get<uint8_t>(), t, t, CMPMODE::EQ, count);
  }
}

// Compare of 64 int32_t against themselves in mode `mode`.
extern "C" __global__ __aicore__ void emu_compare_int32(GM_ADDR x, uint32_t mode) {
  (void)x;
  TPipe pipe;
  TBuf<TPosition::VECCALC> data, mask;
  pipe.InitBuffer(data, 64 * sizeof(int32_t));
  pipe.InitBuffer(mask, 32);
  LocalTensor<int32_t> t = data.Get<int32_t>();
  Duplicate(t, int32_t(7), 64);
  Compare(mask.Get<uint8_t>(), t, t, static_cast<CMPMODE>(mode), 64);
}

namespace emu_test {
namespace {

// One launch of a cast kernel in round mode `m` on the current SoC.
kiln::ascend::LaunchOutcome cast_in(void (*cast_kernel)(GM_ADDR, uint32_t), RoundMode m) {
  DevicePool pool;
  uint8_t* x = pool.alloc<uint8_t>(32);
  return KILN_ASCEND_LAUNCH(cast_kernel, 1, nullptr, x, static_cast<uint32_t>(m));
}

TEST(EmuCannRuleTest, CastFloatToHalfRoundModesPerSoc) {
  EXPECT_LAUNCH_OK(cast_in(emu_cast_float_to_half, RoundMode::CAST_RINT));
  SocScope soc("Ascend310P");
  EXPECT_LAUNCH_FAILS(cast_in(emu_cast_float_to_half, RoundMode::CAST_RINT),
                      "Cast float->half: RoundMode::CAST_RINT is not supported on Ascend310P",
                      "takes CAST_NONE, CAST_ODD", "CAST_NONE rounds to nearest even there");
  EXPECT_LAUNCH_OK(cast_in(emu_cast_float_to_half, RoundMode::CAST_NONE));
}

TEST(EmuCannRuleTest, CastToInt32NamesItsRounding) {
  EXPECT_LAUNCH_FAILS(cast_in(emu_cast_half_to_int32, RoundMode::CAST_NONE),
                      "Cast half->int32_t: RoundMode::CAST_NONE is not supported on Ascend910B",
                      "name the rounding");
  EXPECT_LAUNCH_OK(cast_in(emu_cast_half_to_int32, RoundMode::CAST_TRUNC));
}

TEST(EmuCannRuleTest, CastFloatToFloatOnlyOn910B) {
  EXPECT_LAUNCH_OK(cast_in(emu_cast_float_to_float, RoundMode::CAST_FLOOR));
  SocScope soc("Ascend310P");
  EXPECT_LAUNCH_FAILS(cast_in(emu_cast_float_to_float, RoundMode::CAST_FLOOR),
                      "Cast float->float: the vector unit of Ascend310P has no such conversion",
                      "convert through another type");
}

TEST(EmuCannRuleTest, CastInt32ToFloatRoundsToNearestOn310P) {
  EXPECT_LAUNCH_OK(cast_in(emu_cast_int32_to_float, RoundMode::CAST_TRUNC));
  SocScope soc("Ascend310P");
  EXPECT_LAUNCH_FAILS(cast_in(emu_cast_int32_to_float, RoundMode::CAST_TRUNC),
                      "Cast int32_t->float: RoundMode::CAST_TRUNC is not supported on Ascend310P",
                      "write RoundMode::CAST_NONE");
  EXPECT_LAUNCH_OK(cast_in(emu_cast_int32_to_float, RoundMode::CAST_NONE));
}

TEST(EmuCannRuleTest, CastInt8ToHalfTakesCastNoneOnly) {
  DevicePool pool;
  uint8_t* x = pool.alloc<uint8_t>(64);
  const auto cast = [x](RoundMode m) {
    return KILN_ASCEND_LAUNCH(emu_cast_int8_to_half, 1, nullptr, x, static_cast<uint32_t>(m));
  };
  EXPECT_LAUNCH_OK(cast(RoundMode::CAST_NONE));
  EXPECT_LAUNCH_FAILS(cast(RoundMode::CAST_RINT),
                      "Cast int8_t->half: RoundMode::CAST_RINT is not supported on Ascend910B",
                      "write RoundMode::CAST_NONE");
  SocScope soc("Ascend310P");
  EXPECT_LAUNCH_OK(cast(RoundMode::CAST_NONE));
}

TEST(EmuCannRuleTest, CompareInt32IsEqualityOn910BOnly) {
  DevicePool pool;
  uint8_t* x = pool.alloc<uint8_t>(32);
  const uint32_t eq = static_cast<uint32_t>(CMPMODE::EQ);
  const uint32_t lt = static_cast<uint32_t>(CMPMODE::LT);
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_compare_int32, 1, nullptr, x, eq));
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_compare_int32, 1, nullptr, x, lt),
                      "Compare: int32_t operands take CMPMODE::EQ only on Ascend910B",
                      "Cast to float first");
  SocScope soc("Ascend310P");
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_compare_int32, 1, nullptr, x, eq),
                      "Compare: int32_t operands are not supported on Ascend310P");
}

TEST(EmuCannRuleTest, DataCopyBlockCountFitsTwelveBits) {
  DevicePool pool;
  uint8_t* x = pool.alloc<uint8_t>(4096 * 32);
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_copy_blocks, 1, nullptr, x, 4096u),
                      "DataCopy GM->UB: blockCount 4096 is over 4095",
                      "split the copy into several calls");
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_copy_blocks, 1, nullptr, x, 4095u));
}

TEST(EmuCannRuleTest, DataCopyBlockLenFitsSixteenBits) {
  DevicePool pool;
  float* x = pool.alloc<float>(524288);
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_copy_count, 1, nullptr, x, 524288u),
                      "DataCopy GM->UB: a block of 2097152 B is 65536 32 B units, over the 65535",
                      "DataCopyParams::blockLen (16 bits)");
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_copy_count, 1, nullptr, x, 64u));
}

TEST(EmuCannRuleTest, DataCopyPadBlockLenFitsTwentyOneBits) {
  DevicePool pool;
  uint8_t* x = pool.alloc<uint8_t>(2097152);
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_pad_block, 1, nullptr, x, 2097152u),
                      "DataCopyPad GM->UB: blockLen 2097152 B is over 2097151 B", "split the copy");
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_pad_block, 1, nullptr, x, 40u));
}

TEST(EmuCannRuleTest, CompareCountIsWholeRepeats) {
  DevicePool pool;
  uint8_t* x = pool.alloc<uint8_t>(32);
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_compare_count, 1, nullptr, x, 40u, 0u),
                      "Compare: count 40 is 160 B, not a whole number of 256 B repeats",
                      "elements [0, 40) unwritten", "compare a multiple of 64 elements");
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_compare_count, 1, nullptr, x, 72u, 1u),
                      "CompareScalar: count 72 is 288 B", "elements [64, 72) unwritten");
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_compare_count, 1, nullptr, x, 64u, 0u));
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_compare_count, 1, nullptr, x, 128u, 1u));
}

}  // namespace
}  // namespace emu_test
