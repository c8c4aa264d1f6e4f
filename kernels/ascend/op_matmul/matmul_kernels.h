// Entry points of matmul_kernel.cpp, as host wrappers launch them.
#pragma once

#include <cstdint>

#include "kernels/ascend/common/launch.h"

// The float and bfloat16 entries exist where the cube multiplies them: 910B builds, which are
// the builds with bfloat16 (KILN_ASCEND_BF16), and emulated builds.
#define KILN_MATMUL_FLOAT KILN_ASCEND_BF16

#if defined(KILN_ASCEND_CANN)
#include "aclrtlaunch_kiln_matmul_half.h"
#if KILN_MATMUL_FLOAT
#include "aclrtlaunch_kiln_matmul_bf16.h"
#include "aclrtlaunch_kiln_matmul_float.h"
#endif
#else
extern "C" void kiln_matmul_half(uint8_t* a, uint8_t* b, uint8_t* bias, uint8_t* c,
                                 uint8_t* tiling);
extern "C" void kiln_matmul_float(uint8_t* a, uint8_t* b, uint8_t* bias, uint8_t* c,
                                  uint8_t* tiling);
extern "C" void kiln_matmul_bf16(uint8_t* a, uint8_t* b, uint8_t* bias, uint8_t* c,
                                 uint8_t* tiling);
#endif
