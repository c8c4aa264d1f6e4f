// ATen mode's Tensor: at::Tensor itself, plus the dim-order query lean tensors answer directly.
// Included by tensor.h.
#pragma once

#include <ATen/core/Tensor.h>

#include "runtime/core/aten/tensor_impl.h"

namespace kiln {

using Tensor = at::Tensor;

// Writes the dim order of `tensor` (dimensions from outermost to innermost in memory, ties in
// dimension order, as ExecuTorch derives it from strides) into `dim_order`, which must hold
// tensor.dim() entries. InvalidArgument when it does not, or the rank exceeds the limit.
Error get_dim_order(const Tensor& tensor, Span<DimOrderType> dim_order);

}  // namespace kiln
