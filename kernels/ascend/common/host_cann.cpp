// host.h on CANN's ACL runtime (KILN_ASCEND_CANN): device 0, one context and one stream shared by
// every host thread, synchronous launches, the device's limits from CANN's platform API.
//
// Not verified on a device: Kiln's CI has no NPU. It follows the documented ACL host flow
// (aclInit, aclrtSetDevice, aclrtCreateContext, aclrtCreateStream, aclrtMalloc/aclrtMemcpy,
// aclrtSynchronizeStream) and compiles against CANN 8.1.RC1's headers
// (tools/ascend_check.py --host).
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "kernels/ascend/common/host.h"
#include "tiling/platform/platform_ascendc.h"

namespace kiln::ascend {
namespace {

// TPipe hands out the UB less what the runtime keeps for itself: 8 KiB on every SoC Kiln knows
// (184 of 192 KiB on Ascend910B, 248 of 256 KiB on Ascend310P).
constexpr uint64_t kUbRuntimeReserve = 8 * 1024;
// aclrtMemcpy2d copies at most this many rows per call (the ACL documentation's limit).
constexpr size_t kMaxMemcpy2dRows = size_t{5} * 1024 * 1024;

struct Device {
  bool ready = false;
  std::string failure;  // why it is not ready
  aclrtContext context = nullptr;
  aclrtStream stream = nullptr;
  Platform platform = {"unknown", 0, 0, 0, false, false, 0, 0, 0, 0};
};

uint64_t core_memory(const platform_ascendc::PlatformAscendC& soc,
                     platform_ascendc::CoreMemType type) {
  uint64_t bytes = 0;
  soc.GetCoreMemSize(type, bytes);
  return bytes;
}

// The device's limits as CANN's platform API reports them: core counts and buffer sizes differ
// between 910B variants (910B1 has 24 cube cores, 910B4 20), so nothing is a constant here.
bool query_platform(Device& state) {
  platform_ascendc::PlatformAscendC* soc = platform_ascendc::PlatformAscendCManager::GetInstance();
  if (soc == nullptr) {
    state.failure = "CANN's platform API (PlatformAscendCManager) found no SoC description";
    return false;
  }
  const char* name = aclrtGetSocName();
  const platform_ascendc::SocVersion version = soc->GetSocVersion();
  const bool is_910b = version == platform_ascendc::SocVersion::ASCEND910B;
  const uint64_t ub = core_memory(*soc, platform_ascendc::CoreMemType::UB);
  Platform& p = state.platform;
  p.soc_name = name != nullptr ? name : "unknown";
  p.ub_bytes = ub > kUbRuntimeReserve ? ub - kUbRuntimeReserve : 0;
  // On a split architecture (910B) vector and cube cores differ; on 310P every AI core has both,
  // and GetCoreNum counts them.
  p.vector_cores = soc->GetCoreNumAiv() != 0 ? soc->GetCoreNumAiv() : soc->GetCoreNum();
  p.cube_cores = soc->GetCoreNumAic() != 0 ? soc->GetCoreNumAic() : soc->GetCoreNum();
  p.has_bfloat16 = is_910b;
  p.has_data_copy_pad = is_910b;
  p.l1_bytes = core_memory(*soc, platform_ascendc::CoreMemType::L1);
  p.l0a_bytes = core_memory(*soc, platform_ascendc::CoreMemType::L0_A);
  p.l0b_bytes = core_memory(*soc, platform_ascendc::CoreMemType::L0_B);
  p.l0c_bytes = core_memory(*soc, platform_ascendc::CoreMemType::L0_C);
  if (p.ub_bytes == 0 || p.vector_cores == 0 || p.cube_cores == 0) {
    state.failure = std::string("CANN's platform API reports no UB or no cores for ") + p.soc_name;
    return false;
  }
  return true;
}

Device open_device() {
  Device state;
  // aclInit may only run once per process; a second call reports ACL_ERROR_REPEAT_INITIALIZE.
  const aclError init = aclInit(nullptr);
  if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) {
    state.failure = "aclInit failed with ACL error " + std::to_string(init);
  } else if (aclrtSetDevice(0) != ACL_SUCCESS) {
    state.failure = "aclrtSetDevice(0) failed";
  } else if (aclrtCreateContext(&state.context, 0) != ACL_SUCCESS) {
    state.failure = "aclrtCreateContext on device 0 failed";
  } else if (aclrtCreateStream(&state.stream) != ACL_SUCCESS) {
    state.failure = "aclrtCreateStream failed";
  } else {
    state.ready = query_platform(state);
  }
  return state;
}

// The process's device, opened once by the first caller (a thread-safe static).
const Device& device() {
  static const Device state = open_device();
  return state;
}

// Whether this thread may use the device; records Internal in ctx with the reason if not. ACL's
// current context belongs to a thread and Kiln calls kernels from any host thread, so each thread
// makes the shared context current before its first ACL call: the stream and the memory belong
// to that context.
bool device_ready(KernelRuntimeContext& ctx) {
  const Device& state = device();
  KILN_KERNEL_CHECK_MSG(ctx, state.ready, Internal, false, "no Ascend device: %s",
                        state.failure.c_str());
  thread_local bool current = false;
  if (!current) {
    const aclError error = aclrtSetCurrentContext(state.context);
    KILN_KERNEL_CHECK_MSG(ctx, error == ACL_SUCCESS, Internal, false,
                          "aclrtSetCurrentContext failed on this thread with ACL error %d",
                          static_cast<int>(error));
    current = true;
  }
  return true;
}

bool check_copy(KernelRuntimeContext& ctx, aclError error, const char* what) {
  KILN_KERNEL_CHECK_MSG(ctx, error == ACL_SUCCESS, AccessFailed, false,
                        "%s failed with ACL error %d", what, static_cast<int>(error));
  return true;
}

// `rows` rows of `width` bytes between memories whose rows are `dst_pitch` and `src_pitch` bytes
// apart: one aclrtMemcpy when both are packed, else aclrtMemcpy2d in runs of at most
// kMaxMemcpy2dRows rows. Where the device does not take aclrtMemcpy2d (Atlas inference
// accelerator modules), each row is copied by itself.
bool copy_rows(KernelRuntimeContext& ctx, uint8_t* dst, size_t dst_pitch, const uint8_t* src,
               size_t src_pitch, size_t width, size_t rows, aclrtMemcpyKind kind,
               const char* what) {
  if (rows == 0 || width == 0) return true;
  if (dst_pitch == width && src_pitch == width) {
    return check_copy(ctx, aclrtMemcpy(dst, rows * width, src, rows * width, kind), what);
  }
  for (size_t first = 0; first < rows; first += kMaxMemcpy2dRows) {
    const size_t count = rows - first < kMaxMemcpy2dRows ? rows - first : kMaxMemcpy2dRows;
    uint8_t* to = dst + first * dst_pitch;
    const uint8_t* from = src + first * src_pitch;
    aclError error = aclrtMemcpy2d(to, dst_pitch, from, src_pitch, width, count, kind);
    if (error == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
      error = ACL_SUCCESS;
      for (size_t r = 0; r < count && error == ACL_SUCCESS; ++r) {
        error = aclrtMemcpy(to + r * dst_pitch, width, from + r * src_pitch, width, kind);
      }
    }
    if (!check_copy(ctx, error, what)) return false;
  }
  return true;
}

}  // namespace

Platform platform() { return device().platform; }

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) (void)aclrtFree(data_);
}

bool DeviceBuffer::allocate(KernelRuntimeContext& ctx, size_t bytes) {
  if (!device_ready(ctx)) return false;
  void* data = nullptr;
  const aclError error = aclrtMalloc(&data, bytes < 32 ? 32 : bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  KILN_KERNEL_CHECK_MSG(ctx, error == ACL_SUCCESS, MemoryAllocationFailed, false,
                        "aclrtMalloc of %zu bytes failed with ACL error %d", bytes,
                        static_cast<int>(error));
  data_ = static_cast<uint8_t*>(data);
  return true;
}

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
                               size_t row_bytes, size_t pitch, size_t host_pitch, size_t capacity) {
  if (host_pitch == 0) host_pitch = row_bytes;
  if (capacity == 0) capacity = rows * pitch;
  if (!allocate(ctx, capacity)) return false;
  if ((pitch > row_bytes || capacity > rows * pitch) &&
      !check_copy(ctx, aclrtMemset(data_, capacity, 0, capacity), "aclrtMemset")) {
    return false;
  }
  return copy_rows(ctx, data_, pitch, static_cast<const uint8_t*>(host), host_pitch, row_bytes,
                   rows, ACL_MEMCPY_HOST_TO_DEVICE, "aclrtMemcpy2d to the device");
}

bool DeviceBuffer::download(KernelRuntimeContext& ctx, void* host, size_t bytes) const {
  return bytes == 0 ||
         check_copy(ctx, aclrtMemcpy(host, bytes, data_, bytes, ACL_MEMCPY_DEVICE_TO_HOST),
                    "aclrtMemcpy from the device");
}

bool DeviceBuffer::download_rows(KernelRuntimeContext& ctx, void* host, size_t rows,
                                 size_t row_bytes, size_t pitch, size_t host_pitch) const {
  if (host_pitch == 0) host_pitch = row_bytes;
  return copy_rows(ctx, static_cast<uint8_t*>(host), host_pitch, data_, pitch, row_bytes, rows,
                   ACL_MEMCPY_DEVICE_TO_HOST, "aclrtMemcpy2d from the device");
}

void* launch_stream() { return device().stream; }

bool finish_launch(KernelRuntimeContext& ctx, const LaunchOutcome& outcome) {
  if (!device_ready(ctx)) return false;
  const aclError error = aclrtSynchronizeStream(device().stream);
  KILN_KERNEL_CHECK_MSG(ctx, error == ACL_SUCCESS, Internal, false,
                        "Ascend kernel %s failed on the device (aclrtSynchronizeStream: ACL "
                        "error %d)",
                        outcome.report.kernel.c_str(), static_cast<int>(error));
  return true;
}

}  // namespace kiln::ascend
