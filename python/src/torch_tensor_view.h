// A torch tensor seen as a Kiln tensor over the same memory (lean mode); outs resize through torch.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <optional>
#include <string>

#include "runtime/core/tensor.h"
#include "runtime/core/tensor_impl.h"

namespace kiln::python {

// Metadata for one torch tensor seen as a Kiln tensor. The owner fills sizes and dim_order, then
// calls make_view; the slot must stay at its address while the view is in use.
struct TensorSlot {
  std::array<SizesType, kTensorDimensionLimit> sizes{};
  std::array<DimOrderType, kTensorDimensionLimit> dim_order{};
  std::array<StridesType, kTensorDimensionLimit> strides{};
  std::optional<TensorImpl> impl;
  pybind11::object torch_tensor;
  std::string resize_error;

  // Views `data` with the first `dim` sizes and dim order (their dense strides are computed).
  // An out is resizable: resize_ on the torch tensor, then the view follows its new memory.
  Tensor make_view(pybind11::object tensor, void* data, ScalarType dtype, size_t dim, bool is_out);
};

}  // namespace kiln::python
