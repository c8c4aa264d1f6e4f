// Tiling of the cube matmul kernel (mm, bmm, addmm, linear): a POD the host fills with
// matmul_tiling().
#pragma once

#include <cstdint>

#include "kernel_tiling/kernel_tiling.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// What the Matmul API may use of one cube core (bytes) and what the cube multiplies. The host
// builds it from the platform's buffer sizes (matmul_run.cpp).
struct CubeProfile {
  uint64_t l1_bytes;  // L1 less what the Matmul API keeps for itself (kMatmulL1Reserve910B)
  uint64_t l0a_bytes;
  uint64_t l0b_bytes;
  uint64_t l0c_bytes;
  uint64_t ub_bytes;   // the UB beside the cube (Ascend310P); 0 where the cube core has none
  bool float_inputs;   // 910B: half, bfloat16 and float; 310P: half only
  bool nd_through_ub;  // 310P: ND operands reach L1 (and C leaves L0C) through a UB workspace
};

// On Ascend910B the Matmul API keeps the last 128 bytes of each cube core's 512 KiB L1 for its
// own messages (CANN's TOTAL_L1_SIZE is 512 KiB less KFC_L1_RESERVER_SIZE).
constexpr uint64_t kMatmulL1Reserve910B = 128;

// The largest ND row stride (Ka, Kb, N in elements) the Matmul API's copies take: [1, 65535].
constexpr uint32_t kMatmulMaxRowStride = 65535;

// `batches` independent products C[i] (m x n) = A[i] (m x k) B[i] (k x n), in the storage dtype.
struct MatmulProblem {
  DeviceDtype dtype;
  uint32_t batches;
  uint32_t m;
  uint32_t n;
  uint32_t k;
  bool trans_b;     // B is stored as [n, k] (linear's weight)
  bool bias;        // a float row bias [n] is added (SetBias)
  bool accumulate;  // C holds the addend on entry and the product is added to it
};

// GM layout (elements): A is batches x m rows of k_pitch; B is batches x k rows of n_pitch (or,
// transposed, batches x n rows of k_pitch); C is batches x m rows of n_pitch; the bias holds
// n_pitch floats. Pitches are whole 32-byte blocks, padding zeroed. A core computes whole C
// blocks of cube.singleCoreM x cube.singleCoreN over the full k.
struct MatmulTiling {
  TCubeTiling cube;  // M = m, N = n_pitch, Ka = Kb = k_pitch, singleCoreK = k
  uint32_t dtype;    // DeviceDtype
  uint32_t block_dim;
  uint32_t batches;
  uint32_t m;
  uint32_t n;
  uint32_t k;
  uint32_t k_pitch;
  uint32_t n_pitch;
  uint32_t m_blocks;  // C blocks per batch along m
  uint32_t n_blocks;  // and along n
  uint32_t trans_b;
  uint32_t bias;
  uint32_t accumulate;
  uint32_t ub_workspace_bytes;  // Ascend310P: the UB given to SetLocalWorkspace; 0 elsewhere
  uint32_t reserved;
  uint64_t a_batch_elems;  // distance between batches, per operand
  uint64_t b_batch_elems;
  uint64_t c_batch_elems;
};

// The largest m, n or k the tiling takes (TCubeTiling holds int32 shapes, padded).
constexpr uint32_t kMatmulMaxDim = uint32_t{1} << 30;

// Pure: blocks of C spread over `cores` cube cores, base tiles within the L0 buffers and the L1
// depth they allow, the rest of TCubeTiling as CANN's MultiCoreMatmulTiling fills it. Needs
// k >= 1, every dimension within kMatmulMaxDim and the padded k and n within
// kMatmulMaxRowStride.
MatmulTiling matmul_tiling(const MatmulProblem& problem, const CubeProfile& cube, uint32_t cores);

}  // namespace kiln::ascend
