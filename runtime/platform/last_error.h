// The runtime's one error channel: a thread-local last-error message per thread, written by
// KILN_SET_ERROR in every layer (registry, executor, thread pool, MindSpore glue) and read by the
// caller that got an Error back. The Error code travels as the return value; this says why.
#pragma once

#include <cstdarg>

namespace kiln {

// The message of the last failure on the calling thread; "" before any or after
// clear_last_error(). Valid until the next failure on the same thread. Always NUL-terminated
// printable UTF-8 (see printable() in log.h): bytes that are not valid UTF-8 and control
// characters become \xNN, and a message too long for the buffer is cut at a character boundary.
const char* last_error();
void clear_last_error();

// Formats into the calling thread's buffer and logs the message (always, in every build type).
void set_last_error(const char* format, ...) __attribute__((format(printf, 1, 2)));
void set_last_error_v(const char* format, va_list args) __attribute__((format(printf, 1, 0)));

}  // namespace kiln

// The one way a runtime layer records why it failed: KILN_SET_ERROR("program: %s", why).
#define KILN_SET_ERROR(...) ::kiln::set_last_error(__VA_ARGS__)
