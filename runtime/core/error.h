// Error codes shared by every layer, grouped by kind, plus the propagation macros.
#pragma once

#include <cstdint>

namespace kiln {

// Codes are grouped by their high nibble: 0x0x system, 0x1x operator/kernel, 0x2x resources and
// programs. Values below 0x20 match ExecuTorch's, so logs read the same (OperatorMissing is 0x14).
enum class [[nodiscard]] Error : uint32_t {
  Ok = 0x00,
  Internal = 0x01,
  InvalidState = 0x02,

  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,
  RegistrationExceedingMaxKernels = 0x15,
  RegistrationAlreadyRegistered = 0x16,
  // A backend's kernel cannot take these inputs (a dtype, layout or broadcast pattern); another
  // backend's kernel may, so call_operator falls back (see operator_registry.h).
  KernelDeclined = 0x17,

  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
};

// Stable name of the code, e.g. "InvalidArgument".
const char* to_string(Error error);

}  // namespace kiln

// Returns `error` from the enclosing function (which must return Error) unless it is Ok.
#define KILN_RETURN_IF_ERROR(expr)            \
  do {                                        \
    const ::kiln::Error kiln_error_ = (expr); \
    if (kiln_error_ != ::kiln::Error::Ok) {   \
      return kiln_error_;                     \
    }                                         \
  } while (0)
