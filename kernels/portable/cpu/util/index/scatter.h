// scatter's and scatter_add's shared body: self with src (or a value) written or combined at index
// positions along a dim.
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// How a scattered element meets the one already in out.
enum class ScatterReduce { kAssign, kAdd, kMultiply };

// Checks the layouts of self, index, src (when given) and out; false after ctx.fail.
bool check_scatter_layouts(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& index,
                           const Tensor* src, const Tensor& out);

// out = self, then out[..index..] = src elements (with src's strides) or the one value at `value`
// (an element of self's dtype; src null), combined with what is there by `mode`.
Tensor& scatter_into(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                     const Tensor& index, const Tensor* src, const void* value, ScatterReduce mode,
                     Tensor& out);

}  // namespace kiln::portable
