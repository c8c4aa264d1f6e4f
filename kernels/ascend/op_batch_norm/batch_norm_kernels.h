// The batch norm family's kernels (batch_norm_kernel.cpp), described once for device and host
// code (kernels/ascend/common/kernel_family.h): one entry per input dtype. The per-channel
// parameters always arrive as float (the host widens them exactly), so the host key is the
// input's DeviceDtype.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_BATCH_NORM_PARAMS(P) P(x), P(params), P(y), P(tiling)
#define KILN_BATCH_NORM_KERNELS(X, F)                         \
  X(F, kiln_batch_norm_float, DeviceDtype::Float, ALL, float) \
  X(F, kiln_batch_norm_half, DeviceDtype::Half, ALL, half)    \
  X(F, kiln_batch_norm_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
