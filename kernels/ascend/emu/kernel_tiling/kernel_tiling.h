// TCubeTiling: the Matmul API's tiling, a POD shared by host tiling code and emulated kernels.
#pragma once

#include <cstdint>

// The field set of CANN's TCubeTiling (the names are the API's; written for Kiln). Shapes are in
// elements, sizes in bytes. Kiln's host tiling fills it as CANN's MultiCoreMatmulTiling would;
// the emulator (src/matmul.cpp) checks what it can: the shapes against the call, the ND row
// strides, base tiles against L0A/L0B/L0C with their double buffers, depth and step against L1
// (less what the Matmul API keeps for itself), the share sizes, and on Ascend310P the UB
// workspace transLength asks for.
struct TCubeTiling {
  int32_t usedCoreNum;
  int32_t M;  // the original shape: row strides of the ND matrices (Ka, Kb, N)
  int32_t N;
  int32_t Ka;
  int32_t Kb;
  int32_t singleCoreM;  // what one core computes per IterateAll
  int32_t singleCoreN;
  int32_t singleCoreK;
  int32_t baseM;  // one cube step: baseM x baseK by baseK x baseN into L0C
  int32_t baseN;
  int32_t baseK;
  int32_t depthA1;  // baseM x baseK tiles of A held in L1: stepM x stepKa, times 2 when buffered
  int32_t depthB1;  // baseK x baseN tiles of B held in L1: stepN x stepKb, times 2 when buffered
  int32_t stepM;    // base tiles of A along m loaded into L1 at once
  int32_t stepN;    // base tiles of B along n
  int32_t isBias;
  int32_t transLength;   // Ascend310P: bytes of one ND<->NZ conversion through UB
  int32_t iterateOrder;  // 0: along m first (n the outer loop), 1: along n first
  int32_t shareMode;     // 0: L1, L0C and UB shared by all Matmul objects
  int32_t shareL1Size;   // the bytes of each buffer this Matmul object uses
  int32_t shareL0CSize;
  int32_t shareUbSize;
  int32_t batchM;  // batched matmul (IterateBatch): batches of A and B, and per iteration
  int32_t batchN;
  int32_t singleBatchM;
  int32_t singleBatchN;
  int32_t stepKa;  // base tiles along k of A (of B) loaded into L1 at once
  int32_t stepKb;
  int32_t depthAL1CacheUB;
  int32_t depthBL1CacheUB;
  int32_t dbL0A;  // 1 or 2: single or double buffering of L0A, L0B, L0C
  int32_t dbL0B;
  int32_t dbL0C;
  // The BSNGD/SBNGD layouts of batched attention-style matmuls, per operand.
  int32_t ALayoutInfoB;
  int32_t ALayoutInfoS;
  int32_t ALayoutInfoN;
  int32_t ALayoutInfoG;
  int32_t ALayoutInfoD;
  int32_t BLayoutInfoB;
  int32_t BLayoutInfoS;
  int32_t BLayoutInfoN;
  int32_t BLayoutInfoG;
  int32_t BLayoutInfoD;
  int32_t CLayoutInfoB;
  int32_t CLayoutInfoS1;
  int32_t CLayoutInfoN;
  int32_t CLayoutInfoG;
  int32_t CLayoutInfoS2;
  int32_t BatchNum;
  int32_t reserved;
};

namespace AscendC::tiling {
using ::TCubeTiling;
}  // namespace AscendC::tiling
