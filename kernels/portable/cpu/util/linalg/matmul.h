// Shared argument handling for the matrix-multiply kernels (bmm, addmm, baddbmm, linear, conv).
#pragma once

#include <cstdint>

#include "runtime/core/scalar.h"
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

// Checks batch1 [b, n, m] and batch2 [b, m, p] as ATen's bmm does (`op` names the op); on
// success out is resized to [b, n, p]. False after ctx.fail.
bool check_batches(KernelRuntimeContext& ctx, const Tensor& batch1, const Tensor& batch2,
                   Tensor& out, const char* op);

// out[i] = alpha * batch1[i] batch2[i] + beta * c[i] for every batch i (bmm and baddbmm);
// c_strides are the element strides of c expanded to out's shape (c may be null).
void batched_gemm(const KernelRuntimeContext& ctx, const Tensor& batch1, const Tensor& batch2,
                  Tensor& out, const void* c, ScalarType c_type, const int64_t* c_strides,
                  const Scalar& alpha, const Scalar& beta);

}  // namespace kiln::portable
