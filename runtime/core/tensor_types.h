// Tensor metadata types both modes share: index types, the rank limit, shape dynamism, numel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"

namespace kiln {

using SizesType = int64_t;
using StridesType = int64_t;
using DimOrderType = uint8_t;

// Tensors have at most this many dimensions (ATen's practical limit for kernels here).
constexpr size_t kTensorDimensionLimit = 16;

// How an out tensor may change shape when a kernel resizes it. In ATen mode libtorch tensors own
// resizable storage, so only DenseTensor (memory the caller owns, which cannot grow) reads it.
enum class TensorShapeDynamism : uint8_t {
  Static,          // shape fixed: resizing to another shape is an error
  DynamicBound,    // any shape of the same rank whose bytes fit in capacity_bytes
  DynamicUnbound,  // any shape: a Resizer provides memory (e.g. the Python binding)
};

// Product of sizes; 1 for a 0-dim tensor.
int64_t compute_numel(ArrayRef<SizesType> sizes);

}  // namespace kiln
