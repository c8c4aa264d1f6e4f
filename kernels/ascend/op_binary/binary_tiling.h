// Tiling of the binary elementwise kernels (add, sub, mul, div): a POD the host fills with
// binary_tiling().
//
// The larger operand x (self, or other for a swapped commutative op) is laid out as `rows` rows
// of `pitch` elements (whole 256-byte repeats) and cut into work units: whole rows when a row
// fits a UB tile (several rows per tile), else row chunks of `unit_elems`. Cores get contiguous
// ranges of units. The other operand y reaches each tile one of three ways (YSource).
#pragma once

#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

enum class BinaryOp : uint32_t { Add = 0, Sub, Mul, Div };

// How the kernel sees the two operands.
enum class BinaryPattern : uint32_t {
  Same = 0,  // same number of elements: y streams with x
  Scalar,    // y is one value (a Scalar argument or a one-element tensor)
  Row,       // x [..., N], y [N]: y repeats along the rows
  Column,    // x [M, N], y [M, 1]: y[r] spreads along row r
};

enum class YSource : uint32_t {
  Stream = 0,  // y tiles copy in beside x tiles, at x's column offset (y has `pitch` elements)
  Resident,    // one y pattern of `pitch` elements (or the scalar) replicated once in UB
  PerRow,      // y[r] (GM, `rows` values) duplicated across row r's elements of each tile
};

struct BinaryTiling {
  uint32_t op;             // BinaryOp
  uint32_t dtype;          // DeviceDtype of every operand
  uint32_t pattern;        // BinaryPattern
  uint32_t y_source;       // YSource
  uint32_t compute_float;  // 16-bit storage computes in float (bfloat16 always)
  uint32_t scale_y;        // y is multiplied by alpha first (add/sub with alpha != 1)
  uint64_t rows;           // rows of x in device memory (Row/Resident: periods of the y pattern)
  uint64_t pitch;          // elements per row in device memory, whole repeats
  uint64_t cols;           // elements of y's pattern that are data (Row: N); the rest is padding
  uint64_t unit_elems;     // elements per unit: pitch, or a chunk of a longer row
  uint64_t units_per_row;  // 1 when units are whole rows
  uint64_t block_units;    // units per core (the last core may get fewer)
  uint32_t tile_units;     // units per UB tile (more than 1 only for whole rows)
  uint32_t block_dim;
  uint32_t tile_elems;       // tile_units * unit_elems: the UB tile every buffer is sized for
  uint32_t pattern_from_gm;  // Row/Resident: y holds the whole pattern (else it is built in UB)
  float alpha;               // floating compute types
  float scalar;              // Scalar pattern, floating compute types (exact in half when not
                             // computing in float)
  int32_t alpha_int;         // Int32
  int32_t scalar_int;        // Scalar pattern, Int32
};

// What the host wrapper decided about the operands.
struct BinaryShape {
  BinaryPattern pattern;
  uint64_t rows;  // rows of x (1 for Same and Scalar)
  uint64_t cols;  // elements per row of x (Same and Scalar: all of x)
};

struct BinaryScalars {
  bool scale_y = false;
  float alpha = 1.0f;
  int32_t alpha_int = 1;
  float scalar = 0.0f;
  int32_t scalar_int = 0;
  bool scalar_exact_in_half = true;  // Scalar pattern on Half: whether half computes natively
};

// Pure: units, tiles and cores for `shape` on a device with `ub_bytes` of UB per core.
BinaryTiling binary_tiling(BinaryOp op, DeviceDtype dtype, const BinaryShape& shape,
                           const BinaryScalars& scalars, size_t ub_bytes, uint32_t cores);

// Elements of x and of out in device memory (rows * pitch).
inline uint64_t binary_device_elems(const BinaryTiling& tiling) {
  return tiling.rows * tiling.pitch;
}

}  // namespace kiln::ascend
