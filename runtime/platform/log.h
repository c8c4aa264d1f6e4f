// Logging for the whole runtime: always compiled in, routed through a replaceable sink.
#pragma once

#include <cstddef>

namespace kiln {

enum class LogLevel : unsigned char { Debug, Info, Error };

// A sink receives one formatted line (no trailing newline). The default sink writes to stderr.
using LogSink = void (*)(LogLevel level, const char* message);

// Installs `sink` (nullptr restores the default) and returns the previous one.
LogSink set_log_sink(LogSink sink);

// Formats into a fixed stack buffer (no heap) and hands the line to the current sink.
void log_message(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace kiln

#define KILN_LOG(level, ...) ::kiln::log_message(::kiln::LogLevel::level, __VA_ARGS__)
