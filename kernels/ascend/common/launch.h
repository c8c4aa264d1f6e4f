// KILN_ASCEND_LAUNCH: the one place a kernel launch is spelled, for CANN and emulated builds, and
// the host side of a kernel family (kernel_family.h): its declarations and its launch switch.
//
//   const kiln::ascend::LaunchOutcome outcome =
//       KILN_ASCEND_LAUNCH(add_kernel, block_dim, stream, x, y, z, tiling);
//
// Emulated builds run the kernel in Kiln's checker (kernels/ascend/emu/emulator.h) and return
// its verdict; with KILN_ASCEND_CANN the kernel is queued on `stream` (finish_launch in host.h
// waits for it). Its first parameter is `entry`, not `kernel`, since the CANN form writes the
// member `report.kernel`.
#pragma once

#include <cstdint>

#include "kernels/ascend/common/kernel_family.h"
#include "kernels/ascend/common/launch_outcome.h"

// The arguments as written, after macro expansion (the emulator names GM tensors by them).
#define KILN_ASCEND_ARG_NAMES(...) #__VA_ARGS__

#if defined(KILN_ASCEND_CANN)

#include <string>

#include "acl/acl_base.h"

// ascendc_library compiles each entry with a host-callable launcher, aclrtlaunch_<entry>(block_dim,
// stream, GM pointers as void*...), which queues the <<<block_dim, nullptr, stream>>> launch and
// returns an ACL status. It declares it in its generated aclrtlaunch_<entry>.h; the families
// declare the same functions (KILN_ASCEND_DECLARE_KERNELS) so that no entry is listed twice.
#define KILN_ASCEND_LAUNCH(entry, block_dim, stream, ...)                               \
  ([&]() {                                                                              \
    ::kiln::ascend::LaunchOutcome kiln_outcome_;                                        \
    kiln_outcome_.report.kernel = #entry;                                               \
    kiln_outcome_.report.blocks = static_cast<uint32_t>(block_dim);                     \
    const auto kiln_status_ =                                                           \
        aclrtlaunch_##entry(static_cast<uint32_t>(block_dim), stream, __VA_ARGS__);     \
    kiln_outcome_.ok = kiln_status_ == 0;                                               \
    if (!kiln_outcome_.ok) {                                                            \
      kiln_outcome_.message = std::string(#entry) + ": launch failed with ACL error " + \
                              std::to_string(static_cast<long long>(kiln_status_));     \
    }                                                                                   \
    return kiln_outcome_;                                                               \
  }())

#define KILN_ASCEND_DECLARE_KERNEL_(F, entry, key, where, ...)                       \
  KILN_ASCEND_ON_##where(                                                            \
      extern "C" uint32_t aclrtlaunch_##entry(uint32_t blockDim, aclrtStream stream, \
                                              F##_PARAMS(KILN_ASCEND_ACL_PARAM));)

#else

#include "kernels/ascend/emu/emulator.h"

// `stream` is evaluated and ignored: the emulator runs the kernel to completion before returning.
#define KILN_ASCEND_LAUNCH(entry, block_dim, stream, ...)                                         \
  ((void)(stream), ::kiln::ascend::emu::launch(#entry, KILN_ASCEND_ARG_NAMES(__VA_ARGS__), entry, \
                                               static_cast<uint32_t>(block_dim), __VA_ARGS__))

#define KILN_ASCEND_DECLARE_KERNEL_(F, entry, key, where, ...) \
  KILN_ASCEND_ON_##where(extern "C" void entry(F##_PARAMS(KILN_ASCEND_HOST_PARAM));)

#endif

// At global scope in host code: what KILN_ASCEND_LAUNCH calls for each entry of family F (the
// entries themselves when emulated, their aclrtlaunch_ launchers with CANN).
#define KILN_ASCEND_DECLARE_KERNELS(F) F##_KERNELS(KILN_ASCEND_DECLARE_KERNEL_, F)

// In host code (with host.h): defines
//   LaunchOutcome function(Key key, uint32_t block_dim, uint8_t* <F's GM parameters>...)
// which launches the entry of family F whose host key equals `key` on launch_stream(), or, when
// this build has no such entry, returns no_kernel_for_dtype(family).
#define KILN_ASCEND_DEFINE_LAUNCH(F, function, Key, family)                                 \
  LaunchOutcome function(Key key, uint32_t block_dim, F##_PARAMS(KILN_ASCEND_HOST_PARAM)) { \
    F##_KERNELS(KILN_ASCEND_LAUNCH_IF_, F) return no_kernel_for_dtype(family);              \
  }
#define KILN_ASCEND_LAUNCH_IF_(F, entry, entry_key, where, ...)                                \
  KILN_ASCEND_ON_##where(if (key == (entry_key)) {                                             \
    return KILN_ASCEND_LAUNCH(entry, block_dim, launch_stream(), F##_PARAMS(KILN_ASCEND_ARG)); \
  })
