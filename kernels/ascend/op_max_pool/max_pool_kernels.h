// The max pool family's kernels (max_pool_kernel.cpp), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per storage dtype (the host key).
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_MAX_POOL_PARAMS(P) P(x), P(y), P(slot), P(tiling)
#define KILN_MAX_POOL_KERNELS(X, F)                         \
  X(F, kiln_max_pool_float, DeviceDtype::Float, ALL, float) \
  X(F, kiln_max_pool_half, DeviceDtype::Half, ALL, half)    \
  X(F, kiln_max_pool_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
