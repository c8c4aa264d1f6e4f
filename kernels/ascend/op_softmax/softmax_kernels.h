// Entry points of softmax_kernel.cpp, as host wrappers launch them.
#pragma once

#include <cstdint>

#include "kernels/ascend/common/launch.h"

#if defined(KILN_ASCEND_CANN)
#include "aclrtlaunch_kiln_softmax_float.h"
#include "aclrtlaunch_kiln_softmax_half.h"
#if KILN_ASCEND_BF16
#include "aclrtlaunch_kiln_softmax_bf16.h"
#endif
#else
extern "C" void kiln_softmax_float(uint8_t* x, uint8_t* y, uint8_t* tiling);
extern "C" void kiln_softmax_half(uint8_t* x, uint8_t* y, uint8_t* tiling);
extern "C" void kiln_softmax_bf16(uint8_t* x, uint8_t* y, uint8_t* tiling);
#endif
