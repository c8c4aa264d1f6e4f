// The binary family's kernels (binary_kernel.cpp), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per storage dtype, with the type the vector
// unit computes in.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_BINARY_PARAMS(P) P(x), P(y), P(z), P(tiling)
#define KILN_BINARY_KERNELS(X, F)                                    \
  X(F, kiln_binary_float, DeviceDtype::Float, ALL, float, float)     \
  X(F, kiln_binary_half, DeviceDtype::Half, ALL, half, half)         \
  X(F, kiln_binary_int32, DeviceDtype::Int32, ALL, int32_t, int32_t) \
  X(F, kiln_binary_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t, float)
