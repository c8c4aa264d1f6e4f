// The paged_attention family's kernels (paged_attention_kernel.cpp), described once for device
// and host code (kernels/ascend/common/kernel_family.h): one entry per dtype of the query, the
// caches and the result, each running both phases (the tiling says which); block tables,
// context lengths and the work items come as int32, slopes and partition records as float.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_PAGED_ATTENTION_PARAMS(P)                                                          \
  P(query), P(key_cache), P(value_cache), P(block_tables), P(context_lens), P(slopes), P(work), \
      P(records), P(out), P(tiling)
#define KILN_PAGED_ATTENTION_KERNELS(X, F)                         \
  X(F, kiln_paged_attention_float, DeviceDtype::Float, ALL, float) \
  X(F, kiln_paged_attention_half, DeviceDtype::Half, ALL, half)    \
  X(F, kiln_paged_attention_bf16, DeviceDtype::BFloat16, 910B, bfloat16_t)
