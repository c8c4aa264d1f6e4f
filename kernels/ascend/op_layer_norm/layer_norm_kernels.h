// Entry points of layer_norm_kernel.cpp, as host wrappers launch them. The suffix names the
// input dtype and, after it, the parameters' when they differ (Float weight/bias/statistics).
#pragma once

#include <cstdint>

#include "kernels/ascend/common/launch.h"

#if defined(KILN_ASCEND_CANN)
#include "aclrtlaunch_kiln_layer_norm_float.h"
#include "aclrtlaunch_kiln_layer_norm_half.h"
#include "aclrtlaunch_kiln_layer_norm_half_float.h"
#if KILN_ASCEND_BF16
#include "aclrtlaunch_kiln_layer_norm_bf16.h"
#include "aclrtlaunch_kiln_layer_norm_bf16_float.h"
#endif
#else
extern "C" void kiln_layer_norm_float(uint8_t* x, uint8_t* weight, uint8_t* bias, uint8_t* y,
                                      uint8_t* mean, uint8_t* rstd, uint8_t* tiling);
extern "C" void kiln_layer_norm_half(uint8_t* x, uint8_t* weight, uint8_t* bias, uint8_t* y,
                                     uint8_t* mean, uint8_t* rstd, uint8_t* tiling);
extern "C" void kiln_layer_norm_half_float(uint8_t* x, uint8_t* weight, uint8_t* bias, uint8_t* y,
                                           uint8_t* mean, uint8_t* rstd, uint8_t* tiling);
extern "C" void kiln_layer_norm_bf16(uint8_t* x, uint8_t* weight, uint8_t* bias, uint8_t* y,
                                     uint8_t* mean, uint8_t* rstd, uint8_t* tiling);
extern "C" void kiln_layer_norm_bf16_float(uint8_t* x, uint8_t* weight, uint8_t* bias, uint8_t* y,
                                           uint8_t* mean, uint8_t* rstd, uint8_t* tiling);
#endif
