#include "runtime/platform/last_error.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>

#include "runtime/platform/log.h"

namespace kiln {
namespace {

// Long enough for the longest message a layer writes (a duplicate kernel names two libraries
// and two origins); longer ones are cut, never overflowed.
constexpr size_t kCapacity = 512;

thread_local char message[kCapacity] = "";

}  // namespace

const char* last_error() { return message; }

void clear_last_error() { message[0] = '\0'; }

void set_last_error_v(const char* format, va_list args) {
  // Messages quote names from program files: the stored copy is printable() whatever they hold.
  char raw[kCapacity];
  const int written = std::vsnprintf(raw, sizeof(raw), format, args);
  const size_t length = written < 0 ? 0 : std::min(static_cast<size_t>(written), sizeof(raw) - 1);
  printable(raw, length, message, sizeof(message));
  KILN_LOG(Error, "%s", message);
}

void set_last_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  set_last_error_v(format, args);
  va_end(args);
}

}  // namespace kiln
