// host.h on CANN's ACL runtime (KILN_ASCEND_CANN): device 0, one stream, synchronous launches.
//
// Not verified on a device: Kiln's CI has no NPU. It follows the documented ACL host flow
// (aclInit, aclrtSetDevice, aclrtCreateStream, aclrtMalloc/aclrtMemcpy, aclrtSynchronizeStream).
#include <cstring>

#include "acl/acl.h"
#include "kernels/ascend/common/host.h"

namespace kiln::ascend {
namespace {

struct Device {
  bool ready = false;
  aclrtStream stream = nullptr;
  Platform platform = {"unknown", 0, 0, 0, false, false};
};

Platform platform_of(const char* soc) {
  // UB usable by TPipe and core counts per SoC family (ASCEND_NOTES); 910B is the split
  // architecture with 2 vector cores per cube core.
  if (std::strncmp(soc, "Ascend910B", 10) == 0 || std::strncmp(soc, "Ascend910_93", 12) == 0) {
    return {soc, 184 * 1024, 48, 24, true, true};
  }
  if (std::strncmp(soc, "Ascend310P", 10) == 0) return {soc, 248 * 1024, 8, 8, false, false};
  return {soc, 248 * 1024, 32, 32, false, false};  // Ascend910A and others: no bf16, no pad
}

Device& device() {
  static Device state;
  if (!state.ready) {
    // aclInit may only run once per process; a second call reports "repeat initialize".
    (void)aclInit(nullptr);
    if (aclrtSetDevice(0) == ACL_SUCCESS && aclrtCreateStream(&state.stream) == ACL_SUCCESS) {
      const char* soc = aclrtGetSocName();
      state.platform = platform_of(soc != nullptr ? soc : "unknown");
      state.ready = true;
    }
  }
  return state;
}

}  // namespace

Platform platform() { return device().platform; }

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) (void)aclrtFree(data_);
}

bool DeviceBuffer::allocate(KernelRuntimeContext& ctx, size_t bytes) {
  KILN_KERNEL_CHECK_MSG(ctx, device().ready, Internal, false,
                        "no Ascend device: aclrtSetDevice(0) or aclrtCreateStream failed");
  void* data = nullptr;
  const aclError error = aclrtMalloc(&data, bytes < 32 ? 32 : bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  KILN_KERNEL_CHECK_MSG(ctx, error == ACL_SUCCESS, MemoryAllocationFailed, false,
                        "aclrtMalloc of %zu bytes failed with ACL error %d", bytes,
                        static_cast<int>(error));
  data_ = static_cast<uint8_t*>(data);
  return true;
}

namespace {

bool check_copy(KernelRuntimeContext& ctx, aclError error, const char* what) {
  KILN_KERNEL_CHECK_MSG(ctx, error == ACL_SUCCESS, AccessFailed, false,
                        "%s failed with ACL error %d", what, static_cast<int>(error));
  return true;
}

}  // namespace

bool DeviceBuffer::upload(KernelRuntimeContext& ctx, const void* host, size_t bytes,
                          size_t capacity) {
  if (capacity < bytes) capacity = bytes;
  if (!allocate(ctx, capacity)) return false;
  if (capacity > bytes &&
      !check_copy(ctx, aclrtMemset(data_ + bytes, capacity - bytes, 0, capacity - bytes),
                  "aclrtMemset")) {
    return false;
  }
  return bytes == 0 ||
         check_copy(ctx, aclrtMemcpy(data_, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE),
                    "aclrtMemcpy to the device");
}

bool DeviceBuffer::upload_rows(KernelRuntimeContext& ctx, const void* host, size_t rows,
                               size_t row_bytes, size_t pitch) {
  if (!allocate(ctx, rows * pitch)) return false;
  if (!check_copy(ctx, aclrtMemset(data_, rows * pitch, 0, rows * pitch), "aclrtMemset")) {
    return false;
  }
  return rows == 0 || check_copy(ctx,
                                 aclrtMemcpy2d(data_, pitch, host, row_bytes, row_bytes, rows,
                                               ACL_MEMCPY_HOST_TO_DEVICE),
                                 "aclrtMemcpy2d to the device");
}

bool DeviceBuffer::download(KernelRuntimeContext& ctx, void* host, size_t bytes) const {
  return bytes == 0 ||
         check_copy(ctx, aclrtMemcpy(host, bytes, data_, bytes, ACL_MEMCPY_DEVICE_TO_HOST),
                    "aclrtMemcpy from the device");
}

bool DeviceBuffer::download_rows(KernelRuntimeContext& ctx, void* host, size_t rows,
                                 size_t row_bytes, size_t pitch) const {
  return rows == 0 || check_copy(ctx,
                                 aclrtMemcpy2d(host, row_bytes, data_, pitch, row_bytes, rows,
                                               ACL_MEMCPY_DEVICE_TO_HOST),
                                 "aclrtMemcpy2d from the device");
}

void* launch_stream() { return device().stream; }

bool finish_launch(KernelRuntimeContext& ctx, const LaunchOutcome& outcome) {
  const aclError error = aclrtSynchronizeStream(device().stream);
  KILN_KERNEL_CHECK_MSG(ctx, error == ACL_SUCCESS, Internal, false,
                        "Ascend kernel %s failed on the device (aclrtSynchronizeStream: ACL "
                        "error %d)",
                        outcome.report.kernel.c_str(), static_cast<int>(error));
  return true;
}

}  // namespace kiln::ascend
