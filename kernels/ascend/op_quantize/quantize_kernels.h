// The quantize family's kernels (quantize_kernel.cpp), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per direction and floating dtype (the input
// of a quantization, the output of a dequantization); the quantized dtype comes with the tiling.
// The host key is affine_key(direction, floating dtype).
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_QUANTIZE_PARAMS(P) P(x), P(params), P(y), P(tiling)
#define KILN_QUANTIZE_KERNELS(X, F)                                                                \
  X(F, kiln_quantize_float, affine_key(AffineDirection::Quantize, DeviceDtype::Float), ALL,        \
    kiln::ascend::AffineDirection::Quantize, float)                                                \
  X(F, kiln_quantize_half, affine_key(AffineDirection::Quantize, DeviceDtype::Half), ALL,          \
    kiln::ascend::AffineDirection::Quantize, half)                                                 \
  X(F, kiln_quantize_bf16, affine_key(AffineDirection::Quantize, DeviceDtype::BFloat16), 910B,     \
    kiln::ascend::AffineDirection::Quantize, bfloat16_t)                                           \
  X(F, kiln_dequantize_float, affine_key(AffineDirection::Dequantize, DeviceDtype::Float), ALL,    \
    kiln::ascend::AffineDirection::Dequantize, float)                                              \
  X(F, kiln_dequantize_half, affine_key(AffineDirection::Dequantize, DeviceDtype::Half), ALL,      \
    kiln::ascend::AffineDirection::Dequantize, half)                                               \
  X(F, kiln_dequantize_bf16, affine_key(AffineDirection::Dequantize, DeviceDtype::BFloat16), 910B, \
    kiln::ascend::AffineDirection::Dequantize, bfloat16_t)
