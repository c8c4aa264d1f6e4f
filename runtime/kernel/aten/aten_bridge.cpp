// ATen mode: libtorch exceptions -> KernelRuntimeContext failures.
#include "runtime/kernel/aten/aten_bridge.h"

#include <c10/util/Exception.h>

#include <new>

namespace kiln::aten_bridge {

void fail_from_exception(KernelRuntimeContext& ctx, const std::exception& error) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error)) {
    Error code = Error::InvalidArgument;
    if (dynamic_cast<const c10::NotImplementedError*>(&error) != nullptr) {
      code = Error::NotImplemented;
    } else if (dynamic_cast<const c10::TypeError*>(&error) != nullptr) {
      code = Error::InvalidType;
    }
    ctx.fail(code, "%s", c10_error->what_without_backtrace());
  } else if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) {
    ctx.fail(Error::MemoryAllocationFailed, "out of memory: %s", error.what());
  } else {
    ctx.fail(Error::Internal, "libtorch threw: %s", error.what());
  }
}

void fail_from_unknown_exception(KernelRuntimeContext& ctx) {
  ctx.fail(Error::Internal, "libtorch threw an exception that is not a std::exception");
}

}  // namespace kiln::aten_bridge
