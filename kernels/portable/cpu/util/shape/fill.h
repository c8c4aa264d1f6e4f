// full, full_like, zeros and ones: out (of its own dtype) resized and filled with one value.
#pragma once

#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Resizes out to `size` and fills it with `value` converted to out's dtype, refusing a value
// fill_ would refuse for that dtype (ATen's checked conversion).
Tensor& fill_with(KernelRuntimeContext& ctx, IntArrayRef size, const Scalar& value, Tensor& out);

}  // namespace kiln::portable
