// host.h on Kiln's emulator: device memory is emulated HBM, launches run to completion in place.
#include <cstring>

#include "kernels/ascend/common/host.h"
#include "kernels/ascend/emu/emulator.h"

namespace kiln::ascend {

Platform platform() {
  const emu::SocProfile& soc = emu::soc();
  return {soc.name,         soc.ub_usable_bytes,   soc.vector_cores, soc.cube_cores,
          soc.has_bfloat16, soc.has_data_copy_pad, soc.l1_bytes,     soc.l0a_bytes,
          soc.l0b_bytes,    soc.l0c_bytes};
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) emu::device_free(data_);
}

bool DeviceBuffer::allocate(KernelRuntimeContext& ctx, size_t bytes) {
  data_ = static_cast<uint8_t*>(emu::device_malloc(bytes < 32 ? 32 : bytes));
  KILN_KERNEL_CHECK_MSG(ctx, data_ != nullptr, MemoryAllocationFailed, false,
                        "cannot allocate %zu bytes of (emulated) device memory", bytes);
  return true;
}

bool DeviceBuffer::upload(KernelRuntimeContext& ctx, const void* host, size_t bytes,
                          size_t capacity) {
  if (capacity < bytes) capacity = bytes;
  if (!allocate(ctx, capacity)) return false;
  if (bytes != 0) std::memcpy(data_, host, bytes);
  std::memset(data_ + bytes, 0, capacity - bytes);
  return true;
}

bool DeviceBuffer::upload_rows(KernelRuntimeContext& ctx, const void* host, size_t rows,
                               size_t row_bytes, size_t pitch, size_t host_pitch, size_t capacity) {
  if (host_pitch == 0) host_pitch = row_bytes;
  if (capacity == 0) capacity = rows * pitch;
  if (!allocate(ctx, capacity)) return false;
  std::memset(data_, 0, capacity);
  const auto* src = static_cast<const uint8_t*>(host);
  for (size_t r = 0; r < rows; ++r) std::memcpy(data_ + r * pitch, src + r * host_pitch, row_bytes);
  return true;
}

bool DeviceBuffer::download(KernelRuntimeContext&, void* host, size_t bytes) const {
  if (bytes != 0) std::memcpy(host, data_, bytes);
  return true;
}

bool DeviceBuffer::download_rows(KernelRuntimeContext&, void* host, size_t rows, size_t row_bytes,
                                 size_t pitch, size_t host_pitch) const {
  if (host_pitch == 0) host_pitch = row_bytes;
  auto* dst = static_cast<uint8_t*>(host);
  for (size_t r = 0; r < rows; ++r) std::memcpy(dst + r * host_pitch, data_ + r * pitch, row_bytes);
  return true;
}

void* launch_stream() { return nullptr; }

bool finish_launch(KernelRuntimeContext& ctx, const LaunchOutcome& outcome) {
  KILN_KERNEL_CHECK_MSG(ctx, outcome.ok, Internal, false,
                        "Ascend kernel failed in the emulator: %s", outcome.message.c_str());
  return true;
}

}  // namespace kiln::ascend
