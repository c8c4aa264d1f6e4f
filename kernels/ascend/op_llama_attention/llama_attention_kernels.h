// The llama attention family's kernels (llama_attention_kernel.cpp), described once for device
// and host code (kernels/ascend/common/kernel_family.h): one entry per dtype of query, key, value
// and the result; the mask comes as float, the query rows' context lengths as int32.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_LLAMA_ATTENTION_PARAMS(P) \
  P(query), P(keys), P(values), P(mask), P(lengths), P(out), P(tiling)
#define KILN_LLAMA_ATTENTION_KERNELS(X, F)                         \
  X(F, kiln_llama_attention_float, DeviceDtype::Float, ALL, float) \
  X(F, kiln_llama_attention_half, DeviceDtype::Half, ALL, half)    \
  X(F, kiln_llama_attention_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
