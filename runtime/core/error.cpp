// Names of the error codes.
#include "runtime/core/error.h"

namespace kiln {

const char* to_string(Error error) {
  switch (error) {
    case Error::Ok:
      return "Ok";
    case Error::Internal:
      return "Internal";
    case Error::InvalidState:
      return "InvalidState";
    case Error::KernelDeclined:
      return "KernelDeclined";
    case Error::NotSupported:
      return "NotSupported";
    case Error::NotImplemented:
      return "NotImplemented";
    case Error::InvalidArgument:
      return "InvalidArgument";
    case Error::InvalidType:
      return "InvalidType";
    case Error::OperatorMissing:
      return "OperatorMissing";
    case Error::RegistrationExceedingMaxKernels:
      return "RegistrationExceedingMaxKernels";
    case Error::RegistrationAlreadyRegistered:
      return "RegistrationAlreadyRegistered";
    case Error::NotFound:
      return "NotFound";
    case Error::MemoryAllocationFailed:
      return "MemoryAllocationFailed";
    case Error::AccessFailed:
      return "AccessFailed";
    case Error::InvalidProgram:
      return "InvalidProgram";
  }
  return "Unknown";
}

}  // namespace kiln
