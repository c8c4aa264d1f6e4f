// The shared host side of the matmul ops: stages padded operands, launches the cube kernel.
#pragma once

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/op_matmul/matmul_tiling.h"
#include "runtime/core/tensor.h"

namespace kiln::ascend {

// What is added to the product, if anything.
enum class MatmulAddend {
  None,
  RowBias,  // one value per column of C: numel n, or a single value broadcast (numel 1)
  Full,     // one value per element of C, laid out as C; only for float, since with a 16-bit C
            // the cube would add it to a product already rounded to that dtype
};

// Host views of the operands, contiguous, in the problem's dtype; the caller checked the shapes.
struct MatmulOperands {
  const void* a;  // batches x m x k
  const void* b;  // batches x k x n, or n x k (problem.trans_b)
  MatmulAddend addend_kind;
  const Tensor* addend;  // for RowBias and Full; null otherwise
  void* c;               // batches x m x n (the out tensor's data)
  // B already in device memory as the kernel reads it (batches x k rows of n padded to 32
  // bytes), e.g. written there by another kernel; `b` is then unused. Not with trans_b.
  uint8_t* b_device = nullptr;
};

// `dtype` as the cube multiplies it on the current SoC: Half everywhere, BFloat16 and Float
// where the cube takes them (910B); anything else declines.
bool accept_matmul_dtype(KernelRuntimeContext& ctx, ScalarType dtype, DeviceDtype* device_dtype);

// Runs C = A x B (+ addend) on the cube (problem.bias and problem.accumulate follow the addend):
// pads each row of A, B and C in device memory to whole 32-byte blocks (padding zeroed), launches
// kiln_matmul_<dtype>, copies C back without the padding. Needs problem.k >= 1 and a non-empty C.
// Declines (KernelDeclined, nothing launched) a k or n whose padded row is longer than the
// Matmul API's ND row stride (kMatmulMaxRowStride). Returns false with ctx failed on error.
bool run_matmul(KernelRuntimeContext& ctx, const MatmulProblem& problem,
                const MatmulOperands& operands);

}  // namespace kiln::ascend
