// The advance_step family's kernel (advance_step_kernel.cpp), described once for device and host
// code (kernels/ascend/common/kernel_family.h): one entry, for vLLM's fixed dtypes (Long tokens,
// positions and slots; Int lengths and block tables); the host key is 0.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_ADVANCE_STEP_PARAMS(P)                                                   \
  P(sampled), P(lengths), P(tables), P(tokens_out), P(positions_out), P(lengths_out), \
      P(slots_out), P(tiling)
#define KILN_ADVANCE_STEP_KERNELS(X, F) X(F, kiln_advance_step, 0u, ALL, int32_t)
