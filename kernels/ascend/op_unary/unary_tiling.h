// Tiling of the unary elementwise kernels (relu, gelu, exp, clamp, ...): a POD the host fills with
// unary_tiling(), plus what each op needs in UB (shared by the tiling and the kernel).
#pragma once

#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

enum class UnaryOp : uint32_t {
  Relu = 0,
  GeluErf,   // gelu, approximate='none'
  GeluTanh,  // gelu, approximate='tanh'
  Sigmoid,
  Tanh,
  Exp,
  Sqrt,
  Rsqrt,
  Abs,
  Neg,
  Clamp,
};

// UB an op needs besides its input and output tiles, in tiles of the compute type and in
// one-bit-per-element masks.
struct UnaryNeeds {
  uint32_t scratch_tiles;
  uint32_t masks;
  bool multi_step;  // a formula of several instructions: 16-bit floats compute it in float
};

constexpr UnaryNeeds unary_needs(UnaryOp op) {
  switch (op) {
    case UnaryOp::GeluErf:
      return {3, 1, true};
    case UnaryOp::GeluTanh:
      return {1, 0, true};
    case UnaryOp::Sigmoid:
      return {2, 0, true};
    case UnaryOp::Tanh:
      return {3, 2, true};
    case UnaryOp::Relu:
    case UnaryOp::Clamp:
      return {0, 1, false};  // the NaN mask of keep_nan
    default:
      return {0, 0, false};
  }
}

// clamp's limits, already rounded to the storage dtype as torch rounds them.
struct UnaryLimits {
  uint32_t has_min = 0;
  uint32_t has_max = 0;
  float min_value = 0.0f;  // floating dtypes
  float max_value = 0.0f;
  int32_t min_int = 0;  // Int32
  int32_t max_int = 0;
};

struct UnaryTiling {
  uint32_t op;           // UnaryOp
  uint32_t dtype;        // DeviceDtype
  uint64_t total;        // elements, padded to whole 256-byte repeats
  uint64_t block_elems;  // per core
  uint32_t tile_elems;   // per UB tile
  uint32_t block_dim;
  uint32_t compute_float;  // 16-bit storage computes in float (bfloat16 always)
  uint32_t reserved;
  UnaryLimits limits;
};

// Pure: the split of `count` elements for `op` on a device with `ub_bytes` of UB per core.
UnaryTiling unary_tiling(UnaryOp op, DeviceDtype dtype, uint64_t count, size_t ub_bytes,
                         uint32_t cores, const UnaryLimits& limits = {});

}  // namespace kiln::ascend
