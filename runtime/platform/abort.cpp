// Abort implementation: logs the reason, then terminates.
#include "runtime/platform/abort.h"

#include <cstdlib>

#include "runtime/platform/log.h"

namespace kiln {

void platform_abort(const char* reason) {
  KILN_LOG(Error, "internal invariant broken: %s", reason);
  std::abort();
}

}  // namespace kiln
