// The KV cache family's kernels (kv_cache_kernel.cpp), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per element width, since writing a row into
// its slot moves bytes and computes nothing (a quantized cache's int8 codes as well as its
// scales); the host key is the width in bytes.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_KV_CACHE_PARAMS(P) \
  P(keys), P(values), P(slots), P(key_cache), P(value_cache), P(tiling)
#define KILN_KV_CACHE_KERNELS(X, F)          \
  X(F, kiln_kv_cache_b8, 1u, ALL, uint8_t)   \
  X(F, kiln_kv_cache_b16, 2u, ALL, uint16_t) \
  X(F, kiln_kv_cache_b32, 4u, ALL, uint32_t) \
  X(F, kiln_kv_cache_b64, 8u, ALL, uint64_t)
