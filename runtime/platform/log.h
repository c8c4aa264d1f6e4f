// Logging for the whole runtime: always compiled in, routed through a replaceable sink.
#pragma once

#include <cstddef>

namespace kiln {

enum class LogLevel : unsigned char { Debug, Info, Error };

// A sink receives one formatted line (no trailing newline). The default sink writes to stderr.
using LogSink = void (*)(LogLevel level, const char* message);

// Installs `sink` (nullptr restores the default) and returns the previous one.
LogSink set_log_sink(LogSink sink);

// Copies `length` bytes of `text` into `out` (`capacity` bytes, NUL included) as valid UTF-8 with
// no control characters: a byte that is not part of a valid UTF-8 character, and every control
// character, becomes the four characters \xNN. Names read from a program file (methods,
// operators, delegates) pass through it before they reach a message, so a log or an exception
// never carries raw bytes from the file. Cut at a character boundary when `out` is too small;
// returns the length written.
size_t printable(const char* text, size_t length, char* out, size_t capacity);

// Formats into a fixed stack buffer (no heap), makes it printable() and hands the line to the
// current sink.
void log_message(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace kiln

#define KILN_LOG(level, ...) ::kiln::log_message(::kiln::LogLevel::level, __VA_ARGS__)
