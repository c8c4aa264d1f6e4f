// Argument handling and bodies of the selecting reductions, shared by each pair of operators:
// any/all, amax/amin, argmax/argmin and max/min (values and indices along a dim, or the whole
// tensor). The reductions themselves are reduce_select's.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// any (`any`) or all over `dims` into a Bool out, or a Byte out holding 0/1. `dims` None reduces
// every dim; an empty list reduces none (unlike sum).
Tensor& any_all(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dims,
                bool keepdim, bool any, Tensor& out);

// amax (`max`) or amin: the largest (smallest) value over dims, NaN winning, in self's dtype.
Tensor& amax_amin(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                  bool max, Tensor& out);

// argmax (`max`) or argmin: the first index of the largest (smallest) value, NaN winning.
Tensor& arg_max_min(KernelRuntimeContext& ctx, const Tensor& self, std::optional<int64_t> dim,
                    bool keepdim, bool max, Tensor& out);

// max.dim (`max`) or min.dim: values and first indices along `dim`.
std::tuple<Tensor&, Tensor&> max_min_dim(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                         bool keepdim, bool max, Tensor& values, Tensor& indices);

// max (`max`) or min over the whole tensor; an empty one gives the identity (-inf for max), as
// ATen does.
Tensor& max_min_all(KernelRuntimeContext& ctx, const Tensor& self, bool max, Tensor& out);

}  // namespace kiln::portable
