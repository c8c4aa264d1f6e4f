// Rule 8: half/bfloat16 round to nearest even after every operation; ReduceSum's order; Cast modes.
#include <climits>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "kernel_operator.h"
#include "tests/native/ascend_emu/harness.h"

using namespace AscendC;

// z = ((x + y) * 3) + 1 in half: three roundings.
extern "C" __global__ __aicore__ void emu_half_chain(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, n * sizeof(half));
  pipe.InitBuffer(b, n * sizeof(half));
  GlobalTensor<half> x_gm, y_gm, z_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), n);
  y_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y), n);
  z_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(z), n);
  LocalTensor<half> ta = a.Get<half>();
  LocalTensor<half> tb = b.Get<half>();
  DataCopy(ta, x_gm, n);
  DataCopy(tb, y_gm, n);
  emu_test::sync_pipes<HardEvent::MTE2_V>();
  Add(ta, ta, tb, n);
  Muls(ta, ta, half(3.0f), n);
  Adds(ta, ta, half(1.0f), n);
  emu_test::sync_pipes<HardEvent::V_MTE3>();
  DataCopy(z_gm, ta, n);
}

extern "C" __global__ __aicore__ void emu_reduce_half(GM_ADDR x, GM_ADDR out, uint32_t n) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> in, work, result;
  pipe.InitBuffer(in, n * sizeof(half));
  pipe.InitBuffer(work, 64);
  pipe.InitBuffer(result, 32);
  GlobalTensor<half> x_gm, out_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), n);
  out_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(out), 16);
  LocalTensor<half> t = in.Get<half>();
  LocalTensor<half> r = result.Get<half>();
  DataCopy(t, x_gm, n);
  Duplicate(r, half(0.0f), 16);
  emu_test::sync_pipes<HardEvent::MTE2_V>();
  ReduceSum(r, t, work.Get<half>(), n);
  emu_test::sync_pipes<HardEvent::V_MTE3>();
  DataCopy(out_gm, r, 16);
}

// y = Cast<half>(x, mode), r = Cast<int32_t>(x, mode).
extern "C" __global__ __aicore__ void emu_cast_modes(GM_ADDR x, GM_ADDR y, GM_ADDR r, uint32_t n,
                                                     uint32_t mode, uint32_t to_int) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> in, out_half, out_int;
  pipe.InitBuffer(in, n * sizeof(float));
  pipe.InitBuffer(out_half, n * sizeof(half));
  pipe.InitBuffer(out_int, n * sizeof(int32_t));
  GlobalTensor<float> x_gm;
  GlobalTensor<half> y_gm;
  GlobalTensor<int32_t> r_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), n);
  y_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y), n);
  r_gm.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(r), n);
  LocalTensor<float> t = in.Get<float>();
  DataCopy(t, x_gm, n);
  emu_test::sync_pipes<HardEvent::MTE2_V>();
  if (to_int != 0) {
    Cast(out_int.Get<int32_t>(), t, static_cast<RoundMode>(mode), n);
    emu_test::sync_pipes<HardEvent::V_MTE3>();
    DataCopy(r_gm, out_int.Get<int32_t>(), n);
  } else {
    Cast(out_half.Get<half>(), t, static_cast<RoundMode>(mode), n);
    emu_test::sync_pipes<HardEvent::V_MTE3>();
    DataCopy(y_gm, out_half.Get<half>(), n);
  }
}

// half -> float with a round mode: the conversion is exact, so CANN takes CAST_NONE only.
extern "C" __global__ __aicore__ void emu_cast_widen_rint(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, 64);
  pipe.InitBuffer(b, 128);
  (void)x;
  Cast(b.Get<float>(), a.Get<half>(), RoundMode::CAST_RINT, 32);
}

// 16 floats: y = x + x, z = sqrt(x), w = half(x): overflow, NaN and a narrowing overflow.
extern "C" __global__ __aicore__ void emu_overflow(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> in, sum, root, narrow;
  pipe.InitBuffer(in, 16 * sizeof(float));
  pipe.InitBuffer(sum, 16 * sizeof(float));
  pipe.InitBuffer(root, 16 * sizeof(float));
  pipe.InitBuffer(narrow, 16 * sizeof(half));
  GlobalTensor<float> x_gm, y_gm, z_gm;
  GlobalTensor<half> w_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 16);
  y_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), 16);
  z_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z), 16);
  w_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(w), 16);
  LocalTensor<float> t = in.Get<float>();
  DataCopy(t, x_gm, 16);
  emu_test::sync_pipes<HardEvent::MTE2_V>();
  Add(sum.Get<float>(), t, t, 16);
  Sqrt(root.Get<float>(), t, 16);
  Cast(narrow.Get<half>(), t, RoundMode::CAST_NONE, 16);
  emu_test::sync_pipes<HardEvent::V_MTE3>();
  DataCopy(y_gm, sum.Get<float>(), 16);
  DataCopy(z_gm, root.Get<float>(), 16);
  DataCopy(w_gm, narrow.Get<half>(), 16);
}

namespace emu_test {
namespace {

TEST(EmuPrecisionTest, HalfRoundsAfterEveryOperation) {
  const std::vector<float> xs = {2048, 2048, 0.1f, 1.0f / 3, 65504, -7.25f, 1e-5f, 3.0f,
                                 2049, 1000, 0.3f, 0.7f,     -1,    5,      6,     7};
  const std::vector<float> ys = {1, 3,    0.2f, 1.0f / 3, 32, 0.001f, 1e-5f, 1e-3f,
                                 0, 0.5f, 0.3f, 0.6f,     1,  2,      3,     4};
  const uint32_t n = static_cast<uint32_t>(xs.size());
  std::vector<half> hx, hy;
  for (uint32_t i = 0; i < n; ++i) {
    hx.push_back(half(xs[i]));
    hy.push_back(half(ys[i]));
  }
  DevicePool pool;
  half* x = pool.upload(hx);
  half* y = pool.upload(hy);
  half* z = pool.alloc<half>(n);
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_half_chain, 1, nullptr, x, y, z, n));
  const auto hz = DevicePool::download(z, n);
  int mismatches = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const half sum(static_cast<float>(hx[i]) + static_cast<float>(hy[i]));
    const half product(static_cast<float>(sum) * 3.0f);
    const half expected(static_cast<float>(product) + 1.0f);
    mismatches += hz[i].x != expected.x;
  }
  EXPECT_EQ(mismatches, 0);
  // 2048 + 1 ties to even (2048), then x3 + 1 = 6145 ties to 6144; 2048 + 3 = 2051 -> 2052.
  EXPECT_EQ(static_cast<float>(hz[0]), 6144.0f);
  EXPECT_EQ(static_cast<float>(hz[1]), 6156.0f);
  EXPECT_EQ(static_cast<float>(hz[4]), INFINITY);  // 65536 * 3 overflows half
}

TEST(EmuPrecisionTest, ReduceSumHalfAddsInTheDevicesOrder) {
  // 2048 then 255 ones. Tree within each 128-element repeat (2048 + 1 rounds back to 2048),
  // then the repeats in order: 2174 + 128 = 2302. Exact: 2303 (2304 in half); one by one in
  // half: 2048.
  std::vector<half> hx(256, half(1.0f));
  hx[0] = half(2048.0f);
  DevicePool pool;
  half* x = pool.upload(hx);
  half* out = pool.alloc<half>(16);
  const uint32_t n = 256;
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_reduce_half, 1, nullptr, x, out, n));
  EXPECT_EQ(static_cast<float>(DevicePool::download(out, 1)[0]), 2302.0f);
}

// The documented per-SoC order: 910B adds the repeats' partial sums in order, 310P as a tree.
TEST(EmuPrecisionTest, ReduceSumOrderOfRepeatsPerSoc) {
  // Four repeats summing to 2048, 1, 1, 1. In order: 2048 + 1 ties back to 2048 three times.
  // As a tree: (2048 + 1) + (1 + 1) = 2048 + 2 = 2050.
  std::vector<half> hx(512, half(0.0f));
  hx[0] = half(2048.0f);
  hx[128] = hx[256] = hx[384] = half(1.0f);
  const auto sum_on = [&](const char* soc_name) {
    SocScope soc(soc_name);
    DevicePool pool;
    half* x = pool.upload(hx);
    half* out = pool.alloc<half>(16);
    const uint32_t n = 512;
    EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_reduce_half, 1, nullptr, x, out, n));
    return static_cast<float>(DevicePool::download(out, 1)[0]);
  };
  EXPECT_EQ(sum_on("Ascend910B"), 2048.0f);
  EXPECT_EQ(sum_on("Ascend310P"), 2050.0f);
}

std::vector<half> cast_to_half(const std::vector<float>& values, RoundMode mode) {
  DevicePool pool;
  float* x = pool.upload(values);
  half* y = pool.alloc<half>(values.size());
  int32_t* r = pool.alloc<int32_t>(values.size());
  const uint32_t n = static_cast<uint32_t>(values.size());
  const uint32_t mode_value = static_cast<uint32_t>(mode);
  const uint32_t to_int = 0;
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_cast_modes, 1, nullptr, x, y, r, n, mode_value, to_int));
  return DevicePool::download(y, values.size());
}

std::vector<int32_t> cast_to_int(const std::vector<float>& values, RoundMode mode) {
  DevicePool pool;
  float* x = pool.upload(values);
  half* y = pool.alloc<half>(values.size());
  int32_t* r = pool.alloc<int32_t>(values.size());
  const uint32_t n = static_cast<uint32_t>(values.size());
  const uint32_t mode_value = static_cast<uint32_t>(mode);
  const uint32_t to_int = 1;
  EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_cast_modes, 1, nullptr, x, y, r, n, mode_value, to_int));
  return DevicePool::download(r, values.size());
}

TEST(EmuPrecisionTest, CastRoundModes) {
  const float ulp = 1.0f / 1024;  // half spacing in [1, 2)
  // 16 values (32 B of half): 1 + 0.75 ulp, its negation, a tie 1 + 0.5 ulp, then padding.
  std::vector<float> values(16, 0.0f);
  values[0] = 1.0f + 0.75f * ulp;
  values[1] = -(1.0f + 0.75f * ulp);
  values[2] = 1.0f + 0.5f * ulp;
  values[3] = 1.0f + 1.5f * ulp;
  const auto expect = [&](RoundMode mode, float v0, float v1, float v2, float v3) {
    SCOPED_TRACE(testing::Message() << "to half, RoundMode " << static_cast<int>(mode));
    const auto got = cast_to_half(values, mode);
    EXPECT_EQ(static_cast<float>(got[0]), v0);
    EXPECT_EQ(static_cast<float>(got[1]), v1);
    EXPECT_EQ(static_cast<float>(got[2]), v2);
    EXPECT_EQ(static_cast<float>(got[3]), v3);
  };
  const float up = 1.0f + ulp, up2 = 1.0f + 2 * ulp;
  expect(RoundMode::CAST_RINT, up, -up, 1.0f, up2);
  expect(RoundMode::CAST_NONE, up, -up, 1.0f, up2);
  expect(RoundMode::CAST_FLOOR, 1.0f, -up, 1.0f, up);
  expect(RoundMode::CAST_CEIL, up, -1.0f, up, up2);
  expect(RoundMode::CAST_TRUNC, 1.0f, -1.0f, 1.0f, up);
  expect(RoundMode::CAST_ROUND, up, -up, up, up2);
  expect(RoundMode::CAST_ODD, up, -up, up, up);

  std::vector<float> ints = {2.5f, -2.5f, 3.5f, -0.4f, 3e9f, -3e9f, NAN, 7.0f};
  const auto check_ints = [&](RoundMode mode, std::vector<int32_t> expected) {
    SCOPED_TRACE(testing::Message() << "to int32_t, RoundMode " << static_cast<int>(mode));
    EXPECT_EQ(cast_to_int(ints, mode), expected);
  };
  check_ints(RoundMode::CAST_RINT, {2, -2, 4, 0, INT_MAX, INT_MIN, 0, 7});
  check_ints(RoundMode::CAST_ROUND, {3, -3, 4, 0, INT_MAX, INT_MIN, 0, 7});
  check_ints(RoundMode::CAST_FLOOR, {2, -3, 3, -1, INT_MAX, INT_MIN, 0, 7});
  check_ints(RoundMode::CAST_CEIL, {3, -2, 4, 0, INT_MAX, INT_MIN, 0, 7});
  check_ints(RoundMode::CAST_TRUNC, {2, -2, 3, 0, INT_MAX, INT_MIN, 0, 7});
}

TEST(EmuPrecisionTest, CastModeRules) {
  DevicePool pool;
  uint8_t* x = pool.alloc<uint8_t>(32);
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_cast_widen_rint, 1, nullptr, x), "emu_cast_widen_rint",
                      "Cast half->float: RoundMode::CAST_RINT is not supported",
                      "write RoundMode::CAST_NONE");
  std::vector<float> values(8, 1.0f);
  float* v = pool.upload(values);
  half* y = pool.alloc<half>(8);
  int32_t* r = pool.alloc<int32_t>(8);
  const uint32_t n = 8;
  const uint32_t odd = static_cast<uint32_t>(RoundMode::CAST_ODD);
  const uint32_t to_int = 1;
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_cast_modes, 1, nullptr, v, y, r, n, odd, to_int),
                      "Cast float->int32_t: RoundMode::CAST_ODD is not supported on Ascend910B");
}

// 310P computes in saturation mode: inf results become the largest finite value, NaN 0.
TEST(EmuPrecisionTest, SaturationModeOn310P) {
  const float big = std::numeric_limits<float>::max();
  std::vector<float> xs(16, 1.0f);
  xs[0] = 3e38f;     // x + x overflows float
  xs[1] = -1.0f;     // sqrt is NaN
  xs[2] = 1e6f;      // beyond half
  xs[3] = INFINITY;  // an inf input stays inf through Add
  const auto run = [&](const char* soc_name) {
    SocScope soc(soc_name);
    DevicePool pool;
    float* x = pool.upload(xs);
    float* y = pool.alloc<float>(16);
    float* z = pool.alloc<float>(16);
    half* w = pool.alloc<half>(16);
    EXPECT_LAUNCH_OK(KILN_ASCEND_LAUNCH(emu_overflow, 1, nullptr, x, y, z, w));
    return std::make_tuple(DevicePool::download(y, 16), DevicePool::download(z, 16),
                           DevicePool::download(w, 16));
  };
  const auto [y910, z910, w910] = run("Ascend910B");
  EXPECT_TRUE(std::isinf(y910[0]));
  EXPECT_TRUE(std::isnan(z910[1]));
  EXPECT_TRUE(std::isinf(static_cast<float>(w910[2])));
  EXPECT_TRUE(std::isinf(y910[3]));
  const auto [y310, z310, w310] = run("Ascend310P");
  EXPECT_EQ(y310[0], big);
  EXPECT_EQ(z310[1], 0.0f);
  EXPECT_EQ(static_cast<float>(w310[2]), 65504.0f);
  EXPECT_EQ(y310[3], big);
  EXPECT_EQ(y310[4], 2.0f);  // finite results are untouched
}

TEST(EmuPrecisionTest, BFloat16RoundsTiesToEven) {
  EXPECT_EQ(bfloat16_t(1.00390625f).x, 0x3f80);  // tie to even, as the Cast test relies on
  EXPECT_EQ(bfloat16_t(1.01171875f).x, 0x3f82);
}

}  // namespace

}  // namespace emu_test
