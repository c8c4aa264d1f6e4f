// ATen mode's tensor metadata types: libtorch's TensorImpl, plus the names Kiln's API shares with
// lean mode (SizesType, DimOrderType, TensorShapeDynamism, ...). Included by tensor_impl.h.
#pragma once

#include <c10/core/TensorImpl.h>

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace kiln {

using SizesType = int64_t;
using StridesType = int64_t;
using DimOrderType = uint8_t;

constexpr size_t kTensorDimensionLimit = 16;

// Kept for source compatibility: libtorch tensors own resizable storage, so in ATen mode only
// DenseTensor (memory the caller owns, which cannot grow) reads it.
enum class TensorShapeDynamism : uint8_t {
  Static,
  DynamicBound,
  DynamicUnbound,
};

using TensorImpl = c10::TensorImpl;

// Product of sizes; 1 for a 0-dim tensor.
int64_t compute_numel(ArrayRef<SizesType> sizes);

}  // namespace kiln
