// var and std: sum((x - mean)^2) / max(0, N - correction) over dims, in two passes in double;
// std is its square root.
#pragma once

#include <optional>

#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// The variance of self over `dim` (None: every dim) with `correction` (None: 1) into out, or its
// square root when take_sqrt (std).
Tensor& var_std(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                const std::optional<Scalar>& correction, bool keepdim, bool take_sqrt, Tensor& out);

}  // namespace kiln::portable
