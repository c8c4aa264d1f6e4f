#include "runtime/executor/error_message.h"

#include <cstdarg>
#include <cstdio>

#include "runtime/platform/log.h"

namespace kiln {
namespace {
thread_local char last_error[512] = "";
}  // namespace

const char* last_load_error() { return last_error; }

namespace executor_detail {

void set_load_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(last_error, sizeof(last_error), format, args);
  va_end(args);
  KILN_LOG(Error, "%s", last_error);
}

}  // namespace executor_detail
}  // namespace kiln
