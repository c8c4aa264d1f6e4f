// ATen mode: layout checks and the dim-order copy the dim_order_ops and et_copy kernels share.
#pragma once

#include <optional>

#include "runtime/core/dim_order.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::aten_kernels {

// Whether `tensor` is laid out as `order` (tensor.dim() entries) lays out its shape (dims of size
// 1 take no part; an empty tensor has every layout).
bool has_layout(const Tensor& tensor, const DimOrderType* order);

// Resizes out to `sizes` keeping its dim order when the rank stays, as lean Kiln's resize does
// (libtorch's resize_ would make it contiguous). False after ctx.fail.
bool resize_keeping_dim_order(KernelRuntimeContext& ctx, Tensor& out, c10::IntArrayRef sizes);

// out = self in the layout `dim_order` names (None keeps self's), as the portable kernel of
// kernels/portable/cpu/util/dim_order_copy.h does: dim_order must be a permutation of self's
// dims and out must have that layout; out is resized to self's shape keeping its own dim order,
// and libtorch's copy_ converts to out's dtype. Returns `out` (after ctx.fail on bad input).
Tensor& copy_to_dim_order(KernelRuntimeContext& ctx, const Tensor& self,
                          std::optional<IntArrayRef> dim_order, Tensor& out);

}  // namespace kiln::aten_kernels
