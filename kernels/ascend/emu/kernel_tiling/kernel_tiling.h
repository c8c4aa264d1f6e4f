// TCubeTiling: the Matmul API's tiling, a POD shared by host tiling code and emulated kernels.
#pragma once

#include <cstdint>

// Field names and meanings follow the documented TCubeTiling. Shapes are in elements. The
// emulator checks: M, N, Ka == Kb; singleCore* within them; base* 16-aligned (baseK aligned to
// 32 B of the input type) and within L0A/L0B/L0C; depthA1/depthB1 base tiles within L1.
struct TCubeTiling {
  int32_t usedCoreNum;
  int32_t M;
  int32_t N;
  int32_t Ka;
  int32_t Kb;
  int32_t singleCoreM;
  int32_t singleCoreN;
  int32_t singleCoreK;
  int32_t baseM;
  int32_t baseN;
  int32_t baseK;
  int32_t depthA1;  // baseM x baseK tiles of A held in L1
  int32_t depthB1;  // baseK x baseN tiles of B held in L1
  int32_t stepM;
  int32_t stepN;
  int32_t isBias;
  int32_t transLength;
  int32_t iterateOrder;
  int32_t shareMode;
  int32_t shareL1Size;
  int32_t shareL0CSize;
  int32_t shareUbSize;
  int32_t batchM;
  int32_t batchN;
  int32_t singleBatchM;
  int32_t singleBatchN;
  int32_t stepKa;
  int32_t stepKb;
  int32_t depthAL1CacheUB;
  int32_t depthBL1CacheUB;
  int32_t dbL0A;
  int32_t dbL0B;
  int32_t dbL0C;
};

namespace AscendC::tiling {
using ::TCubeTiling;
}  // namespace AscendC::tiling
