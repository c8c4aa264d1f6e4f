// Default stderr sink and the formatting front end of the runtime log.
#include "runtime/platform/log.h"

#include <cstdarg>
#include <cstdio>

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

void log_message(LogLevel level, const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof(line), format, args);
  va_end(args);
  current_sink(level, line);
}

}  // namespace kiln
