// The to_copy family's kernels (to_copy_kernel.cpp), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per source dtype; the destination dtype
// comes with the tiling.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_TO_COPY_PARAMS(P) P(x), P(y), P(tiling)
#define KILN_TO_COPY_KERNELS(X, F)                           \
  X(F, kiln_to_copy_float, DeviceDtype::Float, ALL, float)   \
  X(F, kiln_to_copy_half, DeviceDtype::Half, ALL, half)      \
  X(F, kiln_to_copy_int32, DeviceDtype::Int32, ALL, int32_t) \
  X(F, kiln_to_copy_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
