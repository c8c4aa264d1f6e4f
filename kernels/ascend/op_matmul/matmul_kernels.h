// The matmul family's kernels (matmul_kernel.cpp), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per storage dtype of A, B and C. The cube
// multiplies float and bfloat16 on Ascend910B only.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_MATMUL_PARAMS(P) P(a), P(b), P(bias), P(c), P(tiling)
#define KILN_MATMUL_KERNELS(X, F)                          \
  X(F, kiln_matmul_half, DeviceDtype::Half, ALL, half)     \
  X(F, kiln_matmul_float, DeviceDtype::Float, 910B, float) \
  X(F, kiln_matmul_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
