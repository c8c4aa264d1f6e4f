// The paged_kv_cache family's kernels (paged_kv_cache_kernel.cpp), described once for device and
// host code (kernels/ascend/common/kernel_family.h): one entry per element width of the caches'
// activation dtypes, since the writes move elements and compute nothing (bfloat16 moves as 16
// bits on every SoC); the host key is the width in bytes.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_PAGED_KV_CACHE_PARAMS(P) \
  P(keys), P(values), P(plan), P(key_cache), P(value_cache), P(tiling)
#define KILN_PAGED_KV_CACHE_KERNELS(X, F)          \
  X(F, kiln_paged_kv_cache_b16, 2u, ALL, uint16_t) \
  X(F, kiln_paged_kv_cache_b32, 4u, ALL, uint32_t)
