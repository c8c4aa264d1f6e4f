// The convolution family's im2col kernels (conv_kernel.cpp), described once for device and host
// code (kernels/ascend/common/kernel_family.h): one entry per storage dtype (the host key). The
// product itself runs on the matmul family's cube kernel.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_IM2COL_PARAMS(P) P(x), P(cols), P(tiling)
#define KILN_IM2COL_KERNELS(X, F)                         \
  X(F, kiln_im2col_float, DeviceDtype::Float, ALL, float) \
  X(F, kiln_im2col_half, DeviceDtype::Half, ALL, half)    \
  X(F, kiln_im2col_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
