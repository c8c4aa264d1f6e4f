// The layer norm family's kernels (layer_norm_kernel.cpp), described once for device and host
// code (kernels/ascend/common/kernel_family.h): one entry per (input dtype, parameter dtype) pair
// torch takes. The parameters are weight and bias, and with them mean and rstd. The host key is a
// LayerNormKey (layer_norm_host.cpp).
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_LAYER_NORM_PARAMS(P) P(x), P(weight), P(bias), P(y), P(mean), P(rstd), P(tiling)
#define KILN_LAYER_NORM_KERNELS(X, F)                                                             \
  X(F, kiln_layer_norm_float, (LayerNormKey{DeviceDtype::Float, DeviceDtype::Float}), ALL, float, \
    float)                                                                                        \
  X(F, kiln_layer_norm_half, (LayerNormKey{DeviceDtype::Half, DeviceDtype::Half}), ALL, half,     \
    half)                                                                                         \
  X(F, kiln_layer_norm_half_float, (LayerNormKey{DeviceDtype::Half, DeviceDtype::Float}), ALL,    \
    half, float)                                                                                  \
  X(F, kiln_layer_norm_bf16, (LayerNormKey{DeviceDtype::BFloat16, DeviceDtype::BFloat16}), 910B,  \
    bfloat16_t, bfloat16_t)                                                                       \
  X(F, kiln_layer_norm_bf16_float, (LayerNormKey{DeviceDtype::BFloat16, DeviceDtype::Float}),     \
    910B, bfloat16_t, float)
