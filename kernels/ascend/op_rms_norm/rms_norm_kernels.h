// The RMS norm family's kernels (rms_norm_kernel.cpp: kiln::rms_norm and
// kiln::fused_add_rms_norm), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per storage dtype; whether the residual add
// runs comes with the tiling.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_RMS_NORM_PARAMS(P) P(x), P(residual), P(weight), P(y), P(sum), P(tiling)
#define KILN_RMS_NORM_KERNELS(X, F)                         \
  X(F, kiln_rms_norm_float, DeviceDtype::Float, ALL, float) \
  X(F, kiln_rms_norm_half, DeviceDtype::Half, ALL, half)    \
  X(F, kiln_rms_norm_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
