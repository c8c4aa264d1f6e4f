// A torch tensor seen as a Kiln tensor over the same memory (lean mode); outs resize through torch.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <optional>
#include <string>

#include "runtime/core/tensor.h"
#include "runtime/core/tensor_impl.h"

namespace kiln::python {

struct TensorSlot;

// The tensors one call views, linked so that an out's resize can find the others: torch moves a
// storage it grows, and every view into it must follow or it reads freed memory.
struct CallTensors {
  TensorSlot* last = nullptr;
};

// How a new view relates to the call's earlier ones, by torch's rule for an out and an input
// (at::get_overlap_status): disjoint, the same memory, or partly the same (which torch refuses).
enum class Overlap { None, Full, Partial };

// Metadata for one torch tensor seen as a Kiln tensor. The owner fills sizes and dim_order, then
// calls make_view; the slot must stay at its address while the view is in use.
struct TensorSlot {
  std::array<SizesType, kTensorDimensionLimit> sizes{};
  std::array<DimOrderType, kTensorDimensionLimit> dim_order{};
  std::array<StridesType, kTensorDimensionLimit> strides{};
  std::optional<TensorImpl> impl;
  pybind11::object torch_tensor;
  std::string resize_error;
  bool is_out = false;
  bool aliases_input = false;  // an out over the same memory as an input: torch will not resize it
  TensorSlot* previous = nullptr;
  CallTensors* call = nullptr;

  // Computes the dense strides of the first `dim` sizes in dim_order; false when they pass int64
  // (torch makes such tensors, with no elements, by expand): no Kiln tensor can view them.
  bool compute_strides(size_t dim);

  // Makes the view a row view (kernels/portable/cpu/util/llm/arguments.h): dim 0 steps by
  // `stride` elements, after compute_strides. Only for the arguments kiln/_row_views.py lists.
  void set_row_stride(StridesType stride) { strides[0] = stride; }

  // Views `data` with the first `dim` sizes, dim order and strides (compute_strides first) and
  // joins `call`. An out is resizable: resize_ on the torch tensor, then the view follows its new
  // memory. Partial when an out and an input of the call partly share memory (the view is made
  // but must not be used); the call must then be refused with kPartialOverlapMessage.
  Overlap make_view(pybind11::object tensor, void* data, ScalarType dtype, size_t dim, bool is_out,
                    CallTensors& call, Tensor* view);
};

// torch's words for an out that partly overlaps an input, so users recognise the refusal.
inline constexpr const char* kPartialOverlapMessage =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location; clone() the input or pass a separate out tensor";

}  // namespace kiln::python
