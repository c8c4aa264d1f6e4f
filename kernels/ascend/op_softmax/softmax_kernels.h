// The softmax family's kernels (softmax_kernel.cpp), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per storage dtype; softmax or log_softmax
// comes with the tiling.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_SOFTMAX_PARAMS(P) P(x), P(y), P(tiling)
#define KILN_SOFTMAX_KERNELS(X, F)                         \
  X(F, kiln_softmax_float, DeviceDtype::Float, ALL, float) \
  X(F, kiln_softmax_half, DeviceDtype::Half, ALL, half)    \
  X(F, kiln_softmax_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
