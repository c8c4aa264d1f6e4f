// What one Ascend kernel launch did and how it ended, in both builds: the emulator fills it from
// its checks and counters, a CANN launch from the ACL status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::ascend {

// Counters of one launch. Emulated launches fill every field; a CANN launch only names the
// kernel and its block count (the device does not count for us).
struct KernelReport {
  std::string kernel;
  uint32_t blocks = 0;
  size_t ub_high_water_bytes = 0;    // max over blocks of the bytes TPipe::InitBuffer handed out
  uint64_t gm_to_ub_bytes = 0;       // vector path: DataCopy GM -> UB
  uint64_t ub_to_gm_bytes = 0;       // and UB -> GM
  uint64_t gm_to_l1_bytes = 0;       // cube path: A, B and the bias GM -> L1
  uint64_t l0c_to_gm_bytes = 0;      // and the results L0C -> GM
  uint64_t vector_instructions = 0;  // one per vector API call
  uint64_t cube_instructions = 0;    // one per baseM x baseN x baseK Mmad step
};

// ok=false carries one message naming the kernel (and, emulated, the block, the tensor and the
// offset). Bytes a failed launch wrote to device memory stay there: the caller copies results
// back only on ok.
struct LaunchOutcome {
  bool ok = true;
  std::string message;
  KernelReport report;
};

}  // namespace kiln::ascend
