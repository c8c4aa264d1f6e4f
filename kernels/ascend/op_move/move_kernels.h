// The move family's kernels (move_kernel.cpp), described once for device and host code
// (kernels/ascend/common/kernel_family.h): one entry per element width, since moving elements
// is the same for every dtype of that width; the host key is the width in bytes.
#pragma once

#include "kernels/ascend/common/kernel_family.h"

#define KILN_MOVE_PARAMS(P) P(x), P(index), P(y), P(tiling)
#define KILN_MOVE_KERNELS(X, F)          \
  X(F, kiln_move_b8, 1u, ALL, uint8_t)   \
  X(F, kiln_move_b16, 2u, ALL, uint16_t) \
  X(F, kiln_move_b32, 4u, ALL, uint32_t) \
  X(F, kiln_move_b64, 8u, ALL, uint64_t)
