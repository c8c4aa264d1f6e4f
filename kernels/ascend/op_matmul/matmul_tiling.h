// Tiling of the cube matmul kernel (mm, bmm, addmm, linear): a POD the host fills with
// matmul_tiling().
#pragma once

#include <cstdint>

#include "kernel_tiling/kernel_tiling.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// The cube's buffers (bytes, per core) and whether it multiplies float. Platform (common/host.h)
// does not carry them, so they come from the SoC's name.
struct CubeProfile {
  uint64_t l1_bytes;
  uint64_t l0a_bytes;
  uint64_t l0b_bytes;
  uint64_t l0c_bytes;
  bool float_inputs;
};

// Pure: the cube of `soc_name` (Ascend910B*, Ascend310P*); other SoCs get the smallest buffers
// and no float.
CubeProfile cube_profile(const char* soc_name);

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
  uint64_t a_batch_elems;  // distance between batches, per operand
  uint64_t b_batch_elems;
  uint64_t c_batch_elems;
};

// The largest m, n or k the tiling takes (TCubeTiling holds int32 shapes, padded).
constexpr uint32_t kMatmulMaxDim = uint32_t{1} << 30;

// Pure: blocks of C spread over `cores` cube cores, base tiles within the L0 buffers and the L1
// depth they allow. Needs k >= 1 and every dimension within kMatmulMaxDim.
MatmulTiling matmul_tiling(const MatmulProblem& problem, const CubeProfile& cube, uint32_t cores);

}  // namespace kiln::ascend
