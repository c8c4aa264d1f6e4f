// The rotary family's kernels (rotary_kernel.cpp), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per pair of storage dtypes, the heads' and
// the cos_sin_cache's (the same, or Float); the host key is rotary_key(heads, cache).
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_ROTARY_PARAMS(P) P(positions), P(cache), P(x), P(y), P(tiling)
#define KILN_ROTARY_KERNELS(X, F)                                                                  \
  X(F, kiln_rotary_float, rotary_key(DeviceDtype::Float, DeviceDtype::Float), ALL, float, float)   \
  X(F, kiln_rotary_half, rotary_key(DeviceDtype::Half, DeviceDtype::Half), ALL, half, half)        \
  X(F, kiln_rotary_half_float_cache, rotary_key(DeviceDtype::Half, DeviceDtype::Float), ALL, half, \
    float)                                                                                         \
  X(F, kiln_rotary_bf16, rotary_key(DeviceDtype::BFloat16, DeviceDtype::BFloat16), 910B,           \
    bfloat16_t, bfloat16_t)                                                                        \
  X(F, kiln_rotary_bf16_float_cache, rotary_key(DeviceDtype::BFloat16, DeviceDtype::Float), 910B,  \
    bfloat16_t, float)
