// The Ascend C kernel API for CPU builds: what `#include "kernel_operator.h"` gives a kernel.
//
// Kiln's kernels are real Ascend C. Without CANN they compile against this header and run in
// Kiln's emulator (kernels/ascend/emu/emulator.h), which checks the device's rules and turns a
// violation into a message naming the kernel, the tensor and the offset.
#pragma once

#include "kernels/ascend/emu/api/data_copy.h"
#include "kernels/ascend/emu/api/global_tensor.h"
#include "kernels/ascend/emu/api/local_tensor.h"
#include "kernels/ascend/emu/api/pipe.h"
#include "kernels/ascend/emu/api/types.h"
#include "kernels/ascend/emu/api/vector_cast.h"
#include "kernels/ascend/emu/api/vector_ops.h"
#include "kernels/ascend/emu/api/vector_reduce.h"
#include "kernels/ascend/emu/api/vector_select.h"
