#include "runtime/platform/last_error.h"

#include <cstddef>
#include <cstdio>

#include "runtime/platform/log.h"

namespace kiln {
namespace {

// Long enough for the longest message a layer writes (a duplicate kernel names two libraries
// and two origins); longer ones are cut, never overflowed.
constexpr size_t kCapacity = 512;

thread_local char message[kCapacity] = "";

// vsnprintf cuts at a byte; drop a trailing partial UTF-8 sequence so the text stays valid.
void trim_partial_character(size_t length) {
  size_t start = length;
  while (start > 0 && (static_cast<unsigned char>(message[start - 1]) & 0xC0) == 0x80) --start;
  if (start == 0) return;
  const auto lead = static_cast<unsigned char>(message[start - 1]);
  if (lead < 0x80) return;  // ASCII: whole
  size_t needed = 4;
  if ((lead & 0xE0) == 0xC0) {
    needed = 2;
  } else if ((lead & 0xF0) == 0xE0) {
    needed = 3;
  }
  if (length - (start - 1) < needed) message[start - 1] = '\0';
}

}  // namespace

const char* last_error() { return message; }

void clear_last_error() { message[0] = '\0'; }

void set_last_error_v(const char* format, va_list args) {
  const int written = std::vsnprintf(message, sizeof(message), format, args);
  if (written < 0) {
    message[0] = '\0';
  } else if (static_cast<size_t>(written) >= sizeof(message)) {
    trim_partial_character(sizeof(message) - 1);
  }
  KILN_LOG(Error, "%s", message);
}

void set_last_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  set_last_error_v(format, args);
  va_end(args);
}

}  // namespace kiln
