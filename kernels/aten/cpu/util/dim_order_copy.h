// ATen mode: the body _to_dim_order_copy and _clone_dim_order share, on libtorch's tensors.
#pragma once

#include <optional>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::aten_kernels {

// out = self in the layout `dim_order` names (None keeps self's), as the portable kernel of
// kernels/portable/cpu/util/dim_order_copy.h does: dim_order must be a permutation of self's
// dims and out must have that layout; out is resized to self's shape keeping its own dim order,
// and libtorch's copy_ converts to out's dtype. Returns `out` (after ctx.fail on bad input).
Tensor& copy_to_dim_order(KernelRuntimeContext& ctx, const Tensor& self,
                          std::optional<IntArrayRef> dim_order, Tensor& out);

}  // namespace kiln::aten_kernels
