// The Matmul API: a multi-core half GEMM with bias and tails, and tilings the SoC cannot hold.
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tests/native/ascend_emu/harness.h"

using namespace AscendC;

namespace {

struct MatmulTiling {
  TCubeTiling cube;
  uint32_t blocks_n;  // blocks along N; block b computes tile (b / blocks_n, b % blocks_n)
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
  return t;
}

}  // namespace

// C[M x N] = A[M x K] x B[K x N] + bias, one singleCoreM x singleCoreN tile per block.
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
  matmul::Matmul<AType, BType, CType, BiasType> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
  const int32_t tail_m = t.M - m0 < t.singleCoreM ? t.M - m0 : t.singleCoreM;
  const int32_t tail_n = t.N - n0 < t.singleCoreN ? t.N - n0 : t.singleCoreN;
  mm.SetTail(tail_m, tail_n);
  mm.SetTensorA(a_gm[int64_t{m0} * t.Ka]);
  mm.SetTensorB(b_gm[n0]);
  mm.SetBias(bias_gm[n0]);
  mm.IterateAll(c_gm[int64_t{m0} * t.N + n0]);
  mm.End();
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

void launch_with_tiling(const MatmulTiling& tiling, const char* fragment_a,
                        const char* fragment_b) {
  const int32_t m = tiling.cube.M, n = tiling.cube.N, k = tiling.cube.Ka;
  SCOPED_TRACE(fragment_a);
  DevicePool pool;
  half* a = pool.alloc<half>(m * k);
  half* b = pool.alloc<half>(k * n);
  float* bias = pool.alloc<float>(n);
  float* c = pool.alloc<float>(m * n);
  uint8_t* t = pool.upload_struct(tiling);
  EXPECT_LAUNCH_FAILS(KILN_ASCEND_LAUNCH(emu_matmul_bias, 1, nullptr, a, b, bias, c, t),
                      "emu_matmul_bias", "(block 0)", fragment_a, fragment_b);
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
}

}  // namespace

}  // namespace emu_test
