// Backend names, from the list in backends.def.
#include "runtime/kernel/backend.h"

namespace kiln {

const char* to_string(Backend backend) {
  const auto index = static_cast<size_t>(backend);
  return index < kNumBackends ? kBackendNames[index] : "unknown";
}

bool backend_from_string(std::string_view name, Backend* out) {
  for (size_t i = 0; i < kNumBackends; ++i) {
    if (name == kBackendNames[i]) {
      *out = static_cast<Backend>(i);
      return true;
    }
  }
  return false;
}

}  // namespace kiln
