// The message of the last failed Program or Method load on this thread, for callers that got
// only an Error back.
#pragma once

namespace kiln {

// "" when nothing has failed yet. Valid until the next failure on the same thread.
const char* last_load_error();

namespace executor_detail {
// Records and logs (always, also in release builds) a load failure's message.
void set_load_error(const char* format, ...) __attribute__((format(printf, 1, 2)));
}  // namespace executor_detail

}  // namespace kiln
