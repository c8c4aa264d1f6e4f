// The weight_int8_linear family's kernels (weight_int8_linear_kernel.cpp), described once for
// device and host code (kernels/ascend/common/kernel_family.h): one entry per dtype of the
// activations and the result; the weight is int8 and the scales and bias come as float.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_WEIGHT_INT8_LINEAR_PARAMS(P) P(x), P(weight), P(scales), P(bias), P(y), P(tiling)
#define KILN_WEIGHT_INT8_LINEAR_KERNELS(X, F)                         \
  X(F, kiln_weight_int8_linear_float, DeviceDtype::Float, ALL, float) \
  X(F, kiln_weight_int8_linear_half, DeviceDtype::Half, ALL, half)    \
  X(F, kiln_weight_int8_linear_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
