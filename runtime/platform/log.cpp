// Default stderr sink and the formatting front end of the runtime log.
#include "runtime/platform/log.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace kiln {
namespace {

const char* level_prefix(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "D";
    case LogLevel::Info:
      return "I";
    case LogLevel::Error:
      return "E";
  }
  return "?";
}

// The length of the valid UTF-8 character at `text` (at most `left` bytes), 0 if it is not one.
size_t character_length(const unsigned char* text, size_t left) {
  const unsigned char lead = text[0];
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;  // the range of the second byte; later ones are 0x80-0xBF
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (left < length || text[1] < low || text[1] > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if ((text[i] & 0xC0) != 0x80) return 0;
  }
  return length;
}

void stderr_sink(LogLevel level, const char* message) {
  std::fprintf(stderr, "[kiln %s] %s\n", level_prefix(level), message);
}

LogSink current_sink = stderr_sink;

}  // namespace

LogSink set_log_sink(LogSink sink) {
  LogSink previous = current_sink;
  current_sink = sink != nullptr ? sink : stderr_sink;
  return previous;
}

size_t printable(const char* text, size_t length, char* out, size_t capacity) {
  if (capacity == 0) return 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(text);
  static const char kHex[] = "0123456789abcdef";
  size_t written = 0;
  for (size_t i = 0; i < length;) {
    const size_t size = character_length(bytes + i, length - i);
    const bool escape = size == 0 || bytes[i] < 0x20 || bytes[i] == 0x7F;
    const size_t needed = escape ? 4 : size;
    if (written + needed >= capacity) break;
    if (escape) {
      out[written++] = '\\';
      out[written++] = 'x';
      out[written++] = kHex[bytes[i] >> 4];
      out[written++] = kHex[bytes[i] & 0xF];
      i += 1;
    } else {
      std::memcpy(out + written, bytes + i, size);
      written += size;
      i += size;
    }
  }
  out[written] = '\0';
  return written;
}

void log_message(LogLevel level, const char* format, ...) {
  char raw[512];
  va_list args;
  va_start(args, format);
  const int length = std::vsnprintf(raw, sizeof(raw), format, args);
  va_end(args);
  char line[512];
  const size_t used = length < 0 ? 0 : std::min(static_cast<size_t>(length), sizeof(raw) - 1);
  printable(raw, used, line, sizeof(line));
  current_sink(level, line);
}

}  // namespace kiln
