// The gated activation family's kernels (gated_kernel.cpp: kiln::silu_and_mul,
// kiln::gelu_and_mul), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per storage dtype; the activation comes
// with the tiling.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_GATED_PARAMS(P) P(input), P(out), P(tiling)
#define KILN_GATED_KERNELS(X, F)                         \
  X(F, kiln_gated_float, DeviceDtype::Float, ALL, float) \
  X(F, kiln_gated_half, DeviceDtype::Half, ALL, half)    \
  X(F, kiln_gated_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
