// Shared argument handling for the matrix-multiply kernels (bmm, addmm, baddbmm, linear, conv).
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Element strides of a contiguous tensor of shape `sizes` viewed as expanded to `target`
// (right-aligned, 0 on broadcast dims), as torch's expand. Fails with torch's message when it
// cannot expand. `strides` receives target.size() entries.
bool expand_strides(KernelRuntimeContext& ctx, ArrayRef<SizesType> sizes,
                    ArrayRef<SizesType> target, int64_t* strides);

// Matrix products are not defined for Bool, as in ATen; `op` names the ATen routine in messages.
bool check_not_bool(KernelRuntimeContext& ctx, ScalarType dtype, const char* op);

}  // namespace kiln::portable
