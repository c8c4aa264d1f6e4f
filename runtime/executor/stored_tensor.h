// Where a tensor value of a program finds its bytes: the one reading of the Tensor table's fields
// that every executor stage shares (the checks, Method::load, constant folding and fusion).
#pragma once

#include "runtime/executor/program_generated.h"

namespace kiln {

// Its bytes are in the program's data file (.ptd), under its fully qualified name; then
// data_buffer_idx means nothing (ExecuTorch leaves any value there).
inline bool is_external(const pte_format::Tensor& tensor) {
  const auto* extra = tensor.extra_tensor_info();
  return extra != nullptr && extra->location() == pte_format::TensorDataLocation::EXTERNAL;
}

// Read-only bytes stored with the program, in its constant data or its data file.
inline bool is_constant(const pte_format::Tensor& tensor) {
  return tensor.allocation_info() == nullptr &&
         (is_external(tensor) || tensor.data_buffer_idx() > 0);
}

// Planned bytes that start from stored ones (a mutable buffer's initial data).
inline bool has_initial_data(const pte_format::Tensor& tensor) {
  return tensor.allocation_info() != nullptr &&
         (is_external(tensor) || tensor.data_buffer_idx() > 0);
}

}  // namespace kiln
