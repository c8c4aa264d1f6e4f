// Kept for callers written before the one error channel (runtime/platform/last_error.h): loads
// now write kiln::last_error() through KILN_SET_ERROR, and these names forward to it.
#pragma once

#include "runtime/platform/last_error.h"

namespace kiln {

inline const char* last_load_error() { return last_error(); }

namespace executor_detail {
template <typename... Args>
void set_load_error(const char* format, Args... args) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  set_last_error(format, args...);
#pragma GCC diagnostic pop
}
}  // namespace executor_detail

}  // namespace kiln
