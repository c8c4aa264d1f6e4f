// The body _to_dim_order_copy and _clone_dim_order share: a copy into the layout a dim order names.
#pragma once

#include <optional>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// out = self, resized to self's shape and written in the layout `dim_order` names (None keeps
// self's own, as torch.preserve_format does), converting to out's dtype as torch's copy_ does.
// `dim_order` must be a permutation of self's dims, and out must already have that layout: a
// kernel writes the out tensor it is given and cannot change its dim order. Returns `out` (after
// ctx.fail on bad input).
Tensor& copy_to_dim_order(KernelRuntimeContext& ctx, const Tensor& self,
                          std::optional<IntArrayRef> dim_order, Tensor& out);

}  // namespace kiln::portable
