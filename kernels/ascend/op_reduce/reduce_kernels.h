// The reduce family's kernels (reduce_kernel.cpp), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per storage dtype; the op (sum, mean, amax)
// comes with the tiling. Int32 is for amax only: torch sums int32 into int64, which the vector
// unit does not have.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_REDUCE_PARAMS(P) P(x), P(y), P(tiling)
#define KILN_REDUCE_KERNELS(X, F)                           \
  X(F, kiln_reduce_float, DeviceDtype::Float, ALL, float)   \
  X(F, kiln_reduce_half, DeviceDtype::Half, ALL, half)      \
  X(F, kiln_reduce_int32, DeviceDtype::Int32, ALL, int32_t) \
  X(F, kiln_reduce_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
