// Tiling of the gated activations kiln::silu_and_mul and kiln::gelu_and_mul: a POD the host fills
// with gated_tiling(), plus what each activation needs in UB (shared by the tiling and the
// kernel).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/gm_rows.h"
#include "kernels/ascend/common/row_split.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

enum class GatedOp : uint32_t {
  Silu = 0,  // silu_and_mul
  GeluErf,   // gelu_and_mul, approximate="none"
  GeluTanh,  // gelu_and_mul, approximate="tanh"
};

// Float scratch tiles and one-bit-per-element masks the activation's formula takes
// (op_unary/unary_math.h for the gelus).
struct GatedNeeds {
  uint32_t scratch_tiles;
  uint32_t masks;
};

constexpr GatedNeeds gated_needs(GatedOp op) {
  return op == GatedOp::GeluErf ? GatedNeeds{3, 1} : GatedNeeds{1, 0};
}

// The most rows one strided DataCopy moves (its blockCount has 12 bits).
constexpr uint32_t kGatedMaxTileRows = 4095;

// The fewest elements a core gets when rows are cut into chunks to spread over more cores.
constexpr uint64_t kGatedMinPiece = 4096;

struct GatedTiling {
  uint32_t op;     // GatedOp
  uint32_t dtype;  // DeviceDtype of input and out
  // Over the rows of out, row_len d.
  RowSplit split;
  // Rows in chunks (split.tile_rows == 0): the (row, chunk) pieces per core, rows taken in order
  // and each row's chunks in order; split.block_dim counts the cores they need.
  uint64_t block_pieces;
  // Where the rows lie in device memory: the host's row images (row_image.h), which mirror row
  // views. An input row holds x, then y from its element d (split.row_len).
  GmRows input;
  GmRows out;
};

// Pure: the split of `rows` rows of out, `d` elements each, on a device with `ub_bytes` of UB
// per core and `cores` vector cores. A tile of whole rows takes x and y of each row with one
// strided DataCopy each. Rows longer than UB, or too few rows to keep the cores busy, go in
// chunks, which the cores share out. The rows' layouts in device memory are the host's to fill
// in.
GatedTiling gated_tiling(GatedOp op, DeviceDtype dtype, uint64_t rows, uint64_t d, size_t ub_bytes,
                         uint32_t cores);

}  // namespace kiln::ascend
