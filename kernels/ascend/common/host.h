// Host side of Kiln's Ascend kernels: the device's limits, device memory and launch results.
//
// One API over the emulator (the default build) and CANN's ACL runtime (KILN_ASCEND_CANN). A
// host wrapper checks its inputs, computes the tiling from platform(), copies the inputs to
// device memory, launches with KILN_ASCEND_LAUNCH and copies the outputs back with
// finish_launch(). Kiln tensors live in host memory on both builds, so every launch moves its
// data through device buffers; a failed launch leaves the host tensors untouched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/ascend/common/launch.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::ascend {

// What tiling functions need to know about the device the kernels run on.
struct Platform {
  const char* soc_name;
  size_t ub_bytes;  // Unified Buffer TPipe::InitBuffer may hand out, per core
  uint32_t vector_cores;
  uint32_t cube_cores;
  bool has_bfloat16;
  bool has_data_copy_pad;
  // Per cube core (bytes): the cube's buffers, for the Matmul API's tiling.
  uint64_t l1_bytes;
  uint64_t l0a_bytes;
  uint64_t l0b_bytes;
  uint64_t l0c_bytes;
};

// The current device, as the platform reports it: CANN's PlatformAscendCManager, or in emulated
// builds the emulator's current SoC profile.
Platform platform();

// Device memory (GM) owned by the host wrapper for one launch; freed when it goes out of scope.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Allocates `bytes` (at least 32, so empty tensors still get a valid address); on failure
  // records MemoryAllocationFailed in ctx and returns false.
  bool allocate(KernelRuntimeContext& ctx, size_t bytes);
  // allocate(capacity) plus a copy of `bytes` of host memory into its start; the rest (the
  // padding to a 32-byte multiple) is zeroed. capacity 0 means `bytes`.
  bool upload(KernelRuntimeContext& ctx, const void* host, size_t bytes, size_t capacity = 0);
  // `rows` rows of `row_bytes` each, read `host_pitch` bytes apart (0: packed, row_bytes apart;
  // at least row_bytes) and laid out `pitch` bytes apart (pitch >= row_bytes: the row padded to
  // 32 bytes, or placed where a row view has it) in `capacity` bytes (0: rows * pitch); every
  // byte no row fills is zeroed.
  bool upload_rows(KernelRuntimeContext& ctx, const void* host, size_t rows, size_t row_bytes,
                   size_t pitch, size_t host_pitch = 0, size_t capacity = 0);
  // Copies `bytes` back to host memory; on failure records AccessFailed and returns false.
  bool download(KernelRuntimeContext& ctx, void* host, size_t bytes) const;
  // The inverse of upload_rows: drops each row's padding, and writes nothing between the rows
  // in host memory (`host_pitch` bytes apart, 0: packed).
  bool download_rows(KernelRuntimeContext& ctx, void* host, size_t rows, size_t row_bytes,
                     size_t pitch, size_t host_pitch = 0) const;

  uint8_t* get() const { return data_; }

 private:
  uint8_t* data_ = nullptr;
};

// The outcome of a launch this build cannot make: `family` has no kernel for the dtype (a
// bfloat16 entry in a CANN build for a SoC without bfloat16).
inline LaunchOutcome no_kernel_for_dtype(const char* family) {
  LaunchOutcome outcome;
  outcome.ok = false;
  outcome.message = std::string("no ") + family + " kernel for this dtype in this build";
  return outcome;
}

// The stream kernels are queued on (nullptr in emulated builds).
void* launch_stream();

// Completes a launch: waits for the device (CANN), records the report, and on failure records
// Internal in ctx with the launch's message. Returns whether the launch succeeded.
bool finish_launch(KernelRuntimeContext& ctx, const LaunchOutcome& outcome);

}  // namespace kiln::ascend
