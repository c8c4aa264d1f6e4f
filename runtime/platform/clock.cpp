// Monotonic clock backed by std::chrono::steady_clock.
#include "runtime/platform/clock.h"

#include <chrono>

namespace kiln {

uint64_t monotonic_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace kiln
