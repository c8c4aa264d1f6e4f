// matmul_tiling: C blocks over the cube cores first, then base tiles in L0 and their L1 depth.
#include "kernels/ascend/op_matmul/matmul_tiling.h"

namespace kiln::ascend {
namespace {

constexpr uint32_t kFractal = 16;  // the cube multiplies 16 x 16 fractals (rows of A, columns of B)
constexpr uint32_t kMaxBaseM = 128;  // a 128 x 256 float accumulator fills 910B's L0C
constexpr uint32_t kMaxBaseN = 256;

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
constexpr uint64_t min_of(uint64_t a, uint64_t b) { return a < b ? a : b; }
constexpr uint64_t max_of(uint64_t a, uint64_t b) { return a > b ? a : b; }

struct BlockSplit {
  uint64_t m_fractals;  // per C block
  uint64_t n_fractals;
};

// The C block shape (in 16 x 16 fractals) that finishes soonest on `cores` cores: rounds of
// blocks times a block's work, its multiply (m x n fractals per k step) plus its loads of A and
// B (m + n fractals per k step). Ties go to fewer blocks, which load A and B less often.
BlockSplit split_blocks(uint64_t batches, uint64_t m_units, uint64_t n_units, uint32_t cores) {
  BlockSplit best{m_units, n_units};
  uint64_t best_cost = ~uint64_t{0};
  uint64_t best_blocks = ~uint64_t{0};
  for (uint64_t nb = 1; nb <= min_of(n_units, cores); ++nb) {
    const uint64_t n_per = ceil_div(n_units, nb);
    if (ceil_div(n_units, n_per) != nb) continue;  // the same blocks as a smaller nb
    for (uint64_t mb = 1; mb <= min_of(m_units, cores); ++mb) {
      const uint64_t m_per = ceil_div(m_units, mb);
      if (ceil_div(m_units, m_per) != mb) continue;
      const uint64_t blocks = batches * mb * nb;
      const uint64_t cost = ceil_div(blocks, cores) * (m_per * n_per + m_per + n_per);
      if (cost < best_cost || (cost == best_cost && blocks < best_blocks)) {
        best = {m_per, n_per};
        best_cost = cost;
        best_blocks = blocks;
      }
    }
  }
  return best;
}

}  // namespace

MatmulTiling matmul_tiling(const MatmulProblem& problem, const CubeProfile& cube, uint32_t cores) {
  const uint64_t size = device_element_size(problem.dtype);
  const uint64_t c0 = elements_per_block(size);  // a fractal row of A (column of B) is 32 bytes
  const uint64_t batches = problem.batches == 0 ? 1 : problem.batches;
  const uint64_t m = problem.m;
  const uint64_t n = problem.n;
  const uint64_t k = problem.k;
  if (cores == 0) cores = 1;

  MatmulTiling t{};
  t.dtype = static_cast<uint32_t>(problem.dtype);
  t.batches = static_cast<uint32_t>(batches);
  t.m = problem.m;
  t.n = problem.n;
  t.k = problem.k;
  t.k_pitch = static_cast<uint32_t>(align_up(k, c0));
  t.n_pitch = static_cast<uint32_t>(align_up(n, c0));
  t.trans_b = problem.trans_b ? 1 : 0;
  t.bias = problem.bias ? 1 : 0;
  t.accumulate = problem.accumulate ? 1 : 0;
  t.a_batch_elems = m * t.k_pitch;
  t.b_batch_elems = problem.trans_b ? n * t.k_pitch : k * t.n_pitch;
  t.c_batch_elems = m * t.n_pitch;

  // C blocks: whole fractals, so block edges along n fall on 32-byte boundaries of C's rows and
  // no two cores write the same bytes.
  const BlockSplit split =
      split_blocks(batches, ceil_div(m, kFractal), ceil_div(n, kFractal), cores);
  const uint64_t single_m = min_of(split.m_fractals * kFractal, m);
  const uint64_t single_n = min_of(split.n_fractals * kFractal, t.n_pitch);
  t.m_blocks = static_cast<uint32_t>(ceil_div(m, single_m));
  t.n_blocks = static_cast<uint32_t>(ceil_div(n, single_n));
  const uint64_t blocks = batches * t.m_blocks * t.n_blocks;
  t.block_dim = static_cast<uint32_t>(min_of(blocks, cores));

  // Base tiles: the float accumulator baseM x baseN in L0C (and, where C leaves through UB, its
  // conversion within half the UB); baseK as deep as L0A and L0B allow with room for double
  // buffering.
  const uint64_t base_m = min_of(kMaxBaseM, align_up(single_m, kFractal));
  uint64_t base_n = min_of(kMaxBaseN, align_up(single_n, kFractal));
  while (base_n > kFractal &&
         (base_m * base_n * sizeof(float) > cube.l0c_bytes ||
          (cube.nd_through_ub && 2 * base_m * base_n * size > cube.ub_bytes))) {
    base_n = align_up(base_n / 2, kFractal);
  }
  const uint64_t k_room =
      min_of(cube.l0a_bytes / 2 / (base_m * size), cube.l0b_bytes / 2 / (base_n * size));
  uint64_t base_k = min_of(k_room / c0 * c0, t.k_pitch);
  if (base_k < c0) base_k = c0;

  // L1 holds `step` base tiles of A and of B along k, twice (the next ones load while the cube
  // works on these), plus one base row of the bias. Base tiles are within L0A and L0B (64 KiB
  // each), so one step always fits.
  const uint64_t a_tile = base_m * base_k * size;
  const uint64_t b_tile = base_k * base_n * size;
  const uint64_t c_tile = base_m * base_n * size;
  const uint64_t bias_bytes = problem.bias ? base_n * sizeof(float) : 0;
  constexpr uint64_t buffers = 2;
  uint64_t step = ceil_div(k, base_k);
  while (step > 1 && buffers * step * (a_tile + b_tile) + bias_bytes > cube.l1_bytes) --step;

  // Where ND operands convert through UB (Ascend310P), one conversion moves at most the largest
  // of an A, B or C base tile or the bias row; the Matmul API takes twice that from the
  // workspace given to SetLocalWorkspace (its default config reuses the UB), or the bias row.
  uint64_t trans_length = 0;
  if (cube.nd_through_ub) {
    trans_length = max_of(max_of(a_tile, b_tile), max_of(c_tile, bias_bytes));
    t.ub_workspace_bytes =
        static_cast<uint32_t>(align_up(max_of(2 * trans_length, bias_bytes), 32));
  }

  TCubeTiling& c = t.cube;
  c.usedCoreNum = static_cast<int32_t>(t.block_dim);
  c.M = static_cast<int32_t>(m);
  c.N = static_cast<int32_t>(t.n_pitch);
  c.Ka = static_cast<int32_t>(t.k_pitch);
  c.Kb = static_cast<int32_t>(t.k_pitch);
  c.singleCoreM = static_cast<int32_t>(single_m);
  c.singleCoreN = static_cast<int32_t>(single_n);
  c.singleCoreK = static_cast<int32_t>(k);
  c.baseM = static_cast<int32_t>(base_m);
  c.baseN = static_cast<int32_t>(base_n);
  c.baseK = static_cast<int32_t>(base_k);
  c.stepM = 1;
  c.stepN = 1;
  c.stepKa = static_cast<int32_t>(step);
  c.stepKb = static_cast<int32_t>(step);
  c.depthA1 = static_cast<int32_t>(buffers * c.stepM * step);
  c.depthB1 = static_cast<int32_t>(buffers * c.stepN * step);
  c.isBias = problem.bias ? 1 : 0;
  c.transLength = static_cast<int32_t>(trans_length);
  c.iterateOrder = 0;  // along m first
  c.dbL0A = 2;         // baseK leaves room for two tiles in L0A and L0B
  c.dbL0B = 2;
  c.dbL0C = 2 * base_m * base_n * sizeof(float) <= cube.l0c_bytes ? 2 : 1;
  // One Matmul object per kernel: it shares nothing, and says what it uses of L1 and L0C. The
  // UB it uses on 310P is the workspace the kernel gives it, not a share.
  c.shareMode = 0;
  c.shareL1Size = static_cast<int32_t>(buffers * step * (a_tile + b_tile) + bias_bytes);
  c.shareL0CSize = static_cast<int32_t>(c.dbL0C * base_m * base_n * sizeof(float));
  c.shareUbSize = 0;
  c.batchM = 1;
  c.batchN = 1;
  c.singleBatchM = 1;
  c.singleBatchN = 1;
  return t;
}

}  // namespace kiln::ascend
