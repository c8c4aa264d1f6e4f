// var, std and var_mean: sum((x - mean)^2) / max(0, N - correction) over dims, in two passes in
// double; std is its square root.
#pragma once

#include <optional>
#include <tuple>

#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// The variance of self over `dim` (None: every dim) with `correction` (None: 1) into out, or its
// square root when take_sqrt (std).
Tensor& var_std(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                const std::optional<Scalar>& correction, bool keepdim, bool take_sqrt, Tensor& out);

// var_out = the variance as var_std computes it, mean_out = the mean (var_mean; both outs have
// self's dtype).
std::tuple<Tensor&, Tensor&> var_mean(KernelRuntimeContext& ctx, const Tensor& self,
                                      std::optional<IntArrayRef> dim,
                                      const std::optional<Scalar>& correction, bool keepdim,
                                      Tensor& var_out, Tensor& mean_out);

}  // namespace kiln::portable
