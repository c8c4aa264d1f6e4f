// Tiling of the unary elementwise kernels (relu, ...): a POD the host fills with unary_tiling().
#pragma once

#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

enum class UnaryOp : uint32_t { Relu = 0 };

struct UnaryTiling {
  uint32_t op;           // UnaryOp
  uint32_t dtype;        // DeviceDtype
  uint64_t total;        // elements, padded to whole 256-byte repeats
  uint64_t block_elems;  // per core
  uint32_t tile_elems;   // per UB tile
  uint32_t block_dim;
};

// Pure: the split of `count` elements for `op` on a device with `ub_bytes` of UB per core.
UnaryTiling unary_tiling(UnaryOp op, DeviceDtype dtype, uint64_t count, size_t ub_bytes,
                         uint32_t cores);

}  // namespace kiln::ascend
