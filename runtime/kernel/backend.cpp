// Backend names.
#include "runtime/kernel/backend.h"

namespace kiln {

const char* to_string(Backend backend) {
  switch (backend) {
    case Backend::Portable:
      return "portable";
    case Backend::Ascend:
      return "ascend";
  }
  return "unknown";
}

bool backend_from_string(std::string_view name, Backend* out) {
  for (uint8_t i = 0; i < kNumBackends; ++i) {
    const Backend candidate = static_cast<Backend>(i);
    if (name == to_string(candidate)) {
      *out = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace kiln
