// KILN_ASCEND_LAUNCH: the one place a kernel launch is spelled, for CANN and emulated builds.
//
//   const kiln::ascend::LaunchOutcome outcome =
//       KILN_ASCEND_LAUNCH(add_kernel, block_dim, stream, x, y, z, tiling);
//
// Emulated builds run the kernel in Kiln's checker (kernels/ascend/emu/emulator.h) and return
// its verdict; with KILN_ASCEND_CANN the kernel is queued on `stream` (finish_launch in host.h
// waits for it).
#pragma once

#include "kernels/ascend/common/launch_outcome.h"

// KILN_ASCEND_BF16: whether this build has bfloat16 kernels. CANN builds compile for one SoC
// (SOC_VERSION; CMake defines KILN_ASCEND_SOC_HAS_BF16 for Ascend910B); emulated builds have them
// all and check the SoC at run time.
#if !defined(KILN_ASCEND_CANN) || defined(KILN_ASCEND_SOC_HAS_BF16)
#define KILN_ASCEND_BF16 1
#else
#define KILN_ASCEND_BF16 0
#endif

#if defined(KILN_ASCEND_CANN)

#include <string>

// ascendc_library generates aclrtlaunch_<kernel>.h with ACLRT_LAUNCH_KERNEL(kernel), which
// queues the kernel on `stream` (the <<<block_dim, nullptr, stream>>> launch, callable from
// host code built by the host compiler). The host wrapper includes that header.
#define KILN_ASCEND_LAUNCH(kernel, block_dim, stream, ...)                                  \
  ([&]() {                                                                                  \
    ::kiln::ascend::LaunchOutcome kiln_outcome_;                                            \
    kiln_outcome_.report.kernel = #kernel;                                                  \
    kiln_outcome_.report.blocks = static_cast<uint32_t>(block_dim);                         \
    const auto kiln_status_ =                                                               \
        ACLRT_LAUNCH_KERNEL(kernel)(static_cast<uint32_t>(block_dim), stream, __VA_ARGS__); \
    kiln_outcome_.ok = kiln_status_ == 0;                                                   \
    if (!kiln_outcome_.ok) {                                                                \
      kiln_outcome_.message = std::string(#kernel) + ": launch failed with ACL error " +    \
                              std::to_string(static_cast<long long>(kiln_status_));         \
    }                                                                                       \
    return kiln_outcome_;                                                                   \
  }())

#else

#include "kernels/ascend/emu/emulator.h"

// `stream` is evaluated and ignored: the emulator runs the kernel to completion before returning.
#define KILN_ASCEND_LAUNCH(kernel, block_dim, stream, ...)                    \
  ((void)(stream), ::kiln::ascend::emu::launch(#kernel, #__VA_ARGS__, kernel, \
                                               static_cast<uint32_t>(block_dim), __VA_ARGS__))

#endif
