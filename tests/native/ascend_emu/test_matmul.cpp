// The Matmul API: a multi-core half GEMM with bias and tails, tilings the SoC cannot hold, ND row
// strides, the Matmul object's End, and the UB workspace Ascend310P needs.
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tests/native/ascend_emu/harness.h"

using namespace AscendC;

namespace {

// How the test kernel ends its Matmul object: correctly, or breaking one rule.
enum class EndMode : uint32_t { Once, Never, Twice, IterateAfterEnd };

struct MatmulTiling {
  TCubeTiling cube;
  uint32_t blocks_n;  // blocks along N; block b computes tile (b / blocks_n, b % blocks_n)
  EndMode end_mode = EndMode::Once;
  uint32_t workspace_bytes = 0;  // UB given to SetLocalWorkspace (0: none)
};

using AType = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;
using BType = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;
using CType = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;
using BiasType = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;

TCubeTiling cube_tiling(int32_t m, int32_t n, int32_t k, int32_t single_m, int32_t single_n) {
  TCubeTiling t{};
  t.usedCoreNum = 1;
  t.M = m;
  t.N = n;
  t.Ka = k;
  t.Kb = k;
  t.singleCoreM = single_m;
  t.singleCoreN = single_n;
  t.singleCoreK = k;
  t.baseM = 32;
  t.baseN = 32;
  t.baseK = 32;
  t.depthA1 = 2;
  t.depthB1 = 2;
  t.stepM = 1;
  t.stepN = 1;
  t.stepKa = 1;
  t.stepKb = 1;
  t.isBias = 1;
  t.dbL0A = 1;
  t.dbL0B = 1;
  t.dbL0C = 1;
  return t;
}

}  // namespace

// C[M x N] = A[M x K] x B[K x N] (+ bias with isBias), one singleCoreM x singleCoreN tile per
// block.
extern "C" __global__ __aicore__ void emu_matmul_bias(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                      GM_ADDR tiling_gm) {
  const MatmulTiling tiling = *reinterpret_cast<__gm__ MatmulTiling*>(tiling_gm);
  const TCubeTiling& t = tiling.cube;
  const int32_t row = static_cast<int32_t>(GetBlockIdx() / tiling.blocks_n);
  const int32_t col = static_cast<int32_t>(GetBlockIdx() % tiling.blocks_n);
  const int32_t m0 = row * t.singleCoreM;
  const int32_t n0 = col * t.singleCoreN;
  if (m0 >= t.M || n0 >= t.N) return;

  GlobalTensor<half> a_gm, b_gm;
  GlobalTensor<float> bias_gm, c_gm;
  a_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a), int64_t{t.M} * t.Ka);
  b_gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b), int64_t{t.Kb} * t.N);
  bias_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias), t.N);
  c_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c), int64_t{t.M} * t.N);

  TPipe pipe;
  TBuf<TPosition::VECCALC> workspace;
  matmul::Matmul<AType, BType, CType, BiasType> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
  if (tiling.workspace_bytes != 0) {
    pipe.InitBuffer(workspace, tiling.workspace_bytes);
    mm.SetLocalWorkspace(workspace.Get<uint8_t>());
  }
  const int32_t tail_m = t.M - m0 < t.singleCoreM ? t.M - m0 : t.singleCoreM;
  const int32_t tail_n = t.N - n0 < t.singleCoreN ? t.N - n0 : t.singleCoreN;
  mm.SetTail(tail_m, tail_n);
  mm.SetTensorA(a_gm[int64_t{m0} * t.Ka]);
  mm.SetTensorB(b_gm[n0]);
  if (t.isBias != 0) mm.SetBias(bias_gm[n0]);
  mm.IterateAll(c_gm[int64_t{m0} * t.N + n0]);
  if (tiling.end_mode != EndMode::Never) mm.End();
  if (tiling.end_mode == EndMode::Twice) mm.End();
  if (tiling.end_mode == EndMode::IterateAfterEnd) mm.IterateAll(c_gm[int64_t{m0} * t.N + n0]);
}

namespace emu_test {
namespace {

TEST(EmuMatmulTest, MultiCoreHalfGemmWithBiasAndTails) {
  const int32_t m = 100, n = 72, k = 48, single_m = 64, single_n = 48;
  MatmulTiling tiling{cube_tiling(m, n, k, single_m, single_n), 2};
  const uint32_t blocks = 2 * 2;
  std::vector<half> ha(m * k), hb(k * n);
  std::vector<float> hbias(n);
  for (int32_t i = 0; i < m * k; ++i) ha[i] = half(static_cast<float>((i * 7) % 13) * 0.25f - 1.0f);
  for (int32_t i = 0; i < k * n; ++i) hb[i] = half(static_cast<float>((i * 5) % 11) * 0.5f - 2.0f);
  for (int32_t j = 0; j < n; ++j) hbias[j] = static_cast<float>(j) * 0.1f;
  DevicePool pool;
  half* a = pool.upload(ha);
  half* b = pool.upload(hb);
  float* bias = pool.upload(hbias);
  float* c = pool.alloc<float>(m * n);
  uint8_t* t = pool.upload_struct(tiling);
  const auto outcome = KILN_ASCEND_LAUNCH(emu_matmul_bias, blocks, nullptr, a, b, bias, c, t);
  EXPECT_LAUNCH_OK(outcome);
  const auto hc = DevicePool::download(c, m * n);
  int mismatches = 0;
  for (int32_t i = 0; i < m; ++i) {
    for (int32_t j = 0; j < n; ++j) {
      float expected = hbias[j];
      for (int32_t kk = 0; kk < k; ++kk) {
        expected += static_cast<float>(ha[i * k + kk]) * static_cast<float>(hb[kk * n + j]);
      }
      if (std::fabs(hc[i * n + j] - expected) > 1e-4f * (1.0f + std::fabs(expected))) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0);
  // Tiles: 64x48, 64x24, 36x48, 36x24 -> base steps (2*2 + 2*1 + 2*2 + 2*1) * (48/32 -> 2).
  EXPECT_EQ(outcome.report.cube_instructions, (4 + 2 + 4 + 2) * 2);
}

void launch_with_tiling(const MatmulTiling& tiling, const char* fragment_a, const char* fragment_b,
                        bool fails = true) {
  const int32_t m = tiling.cube.M, n = tiling.cube.N, k = tiling.cube.Ka;
  SCOPED_TRACE(fragment_a);
  DevicePool pool;
  half* a = pool.alloc<half>(m * k);
  half* b = pool.alloc<half>(k * n);
  float* bias = pool.alloc<float>(n);
  float* c = pool.alloc<float>(m * n);
  uint8_t* t = pool.upload_struct(tiling);
  const auto outcome = KILN_ASCEND_LAUNCH(emu_matmul_bias, 1, nullptr, a, b, bias, c, t);
  if (fails) {
    EXPECT_LAUNCH_FAILS(outcome, "emu_matmul_bias", "(block 0)", fragment_a, fragment_b);
  } else {
    EXPECT_LAUNCH_OK(outcome);
  }
}

TEST(EmuMatmulTest, RefusesTilingsTheSocCannotHold) {
  MatmulTiling misaligned{cube_tiling(64, 64, 64, 64, 64), 1};
  misaligned.cube.baseM = 24;
  launch_with_tiling(misaligned, "TCubeTiling.baseM 24 is not a multiple of 16",
                     "Matmul::IterateAll");
  MatmulTiling too_big{cube_tiling(512, 512, 512, 512, 512), 1};
  too_big.cube.baseM = 256;
  too_big.cube.baseN = 256;
  launch_with_tiling(too_big, "needs 262144 B of L0C", "holds 131072 B on Ascend910B");
  MatmulTiling past_m{cube_tiling(64, 64, 64, 80, 64), 1};
  launch_with_tiling(past_m, "TCubeTiling.singleCoreM 80 exceeds M 64", "emu_matmul_bias");
  MatmulTiling double_l0c{cube_tiling(128, 256, 64, 128, 256), 1};
  double_l0c.cube.baseM = 128;
  double_l0c.cube.baseN = 256;
  double_l0c.cube.dbL0C = 2;
  launch_with_tiling(double_l0c, "dbL0C baseM x baseN float accumulators needs 262144 B of L0C",
                     "holds 131072 B on Ascend910B");
}

// The tiling's own fields must agree: depth against step, and the enumerations.
TEST(EmuMatmulTest, RefusesInconsistentTilings) {
  MatmulTiling depth{cube_tiling(64, 64, 64, 64, 64), 1};
  depth.cube.depthA1 = 3;
  launch_with_tiling(depth, "TCubeTiling.depthA1 3 is not stepM x stepKa (1)", "twice that");
  MatmulTiling steps{cube_tiling(64, 64, 128, 64, 64), 1};
  steps.cube.stepKa = 2;
  steps.cube.stepKb = 3;
  steps.cube.depthA1 = 4;
  steps.cube.depthB1 = 6;
  launch_with_tiling(steps, "TCubeTiling.stepKa 2 and TCubeTiling.stepKb 3", "multiple");
  MatmulTiling buffering{cube_tiling(64, 64, 64, 64, 64), 1};
  buffering.cube.dbL0A = 0;
  launch_with_tiling(buffering, "TCubeTiling.dbL0A 0 must be 1 or 2", "double buffered");
  MatmulTiling order{cube_tiling(64, 64, 64, 64, 64), 1};
  order.cube.iterateOrder = 2;
  launch_with_tiling(order, "TCubeTiling.iterateOrder 2 must be 0 or 1", "along m first");
  MatmulTiling share{cube_tiling(64, 64, 64, 64, 64), 1};
  share.cube.shareL0CSize = 256 * 1024;
  launch_with_tiling(share, "TCubeTiling.shareL0CSize 262144 is outside L0C", "131072 B");
}

// On Ascend910B the Matmul API keeps 128 B of the 512 KiB L1: a tiling that fills all of it
// fits on Ascend310P (1 MiB) only.
TEST(EmuMatmulTest, L1ReserveOfTheMatmulApiOn910B) {
  MatmulTiling full{cube_tiling(128, 128, 512, 128, 128), 1};
  TCubeTiling& t = full.cube;
  t.isBias = 0;
  t.baseM = t.baseN = t.baseK = 128;  // 32 KiB tiles of A and B; two of each in L0A and L0B
  t.dbL0A = t.dbL0B = 2;
  t.stepKa = t.stepKb = 4;
  t.depthA1 = t.depthB1 = 8;  // 8 x 32 KiB of A and of B: 512 KiB
  launch_with_tiling(full, "needs 524288 B of L1 (less the Matmul API's 128 B)",
                     "holds 524160 B on Ascend910B");
  t.depthA1 = t.depthB1 = 4;  // stepKa x 1: single buffered, 256 KiB
  launch_with_tiling(full, "", "", /*fails=*/false);
}

// ND row strides (Ka, Kb, N) are 1 to 65535 elements.
TEST(EmuMatmulTest, NdRowStrideBeyond65535) {
  MatmulTiling wide{cube_tiling(16, 16, 65536, 16, 16), 1};
  wide.cube.singleCoreK = 64;
  wide.cube.isBias = 0;
  launch_with_tiling(wide, "the ND row stride of A (Ka) is 65536 elements", "1 to 65535");
  wide.cube.Ka = wide.cube.Kb = 65535;
  launch_with_tiling(wide, "", "", /*fails=*/false);
}

// A Matmul object ends exactly once, and nothing uses it after End.
TEST(EmuMatmulTest, EndExactlyOnce) {
  MatmulTiling tiling{cube_tiling(32, 32, 32, 32, 32), 1};
  tiling.end_mode = EndMode::Never;
  launch_with_tiling(tiling, "the kernel returned without Matmul::End", "exactly once");
  tiling.end_mode = EndMode::Twice;
  launch_with_tiling(tiling, "Matmul::End called twice", "exactly once");
  tiling.end_mode = EndMode::IterateAfterEnd;
  launch_with_tiling(tiling, "Matmul::IterateAll after End", "once, after the last IterateAll");
}

// Ascend310P converts ND operands through UB: the kernel gives the Matmul API a workspace of
// 2 x transLength, transLength holding the largest base tile; Ascend910B takes none.
TEST(EmuMatmulTest, UbWorkspaceOn310P) {
  MatmulTiling tiling{cube_tiling(64, 64, 64, 64, 64), 1};
  const int32_t largest = 32 * 32 * 4;  // a 32 x 32 float tile of C
  tiling.cube.transLength = largest;
  tiling.workspace_bytes = 2 * largest;
  launch_with_tiling(tiling, "SetLocalWorkspace on Ascend910B", "only Ascend310P");
  SocScope scope("Ascend310P");
  launch_with_tiling(tiling, "", "", /*fails=*/false);
  tiling.workspace_bytes = 0;
  launch_with_tiling(tiling, "no SetLocalWorkspace on Ascend310P", "8192 B (2 x transLength)");
  tiling.workspace_bytes = largest;
  launch_with_tiling(tiling, "local workspace (SetLocalWorkspace)", "Matmul::IterateAll");
  tiling.workspace_bytes = 2 * largest;
  tiling.cube.transLength = largest / 2;
  launch_with_tiling(tiling, "TCubeTiling.transLength 2048 is less than the 4096 B",
                     "one ND<->NZ conversion");
}

}  // namespace

}  // namespace emu_test
