// Backend names at the Python boundary: the list kiln._C.backends() returns and the parsing of a
// backend preference list, both from runtime/kernel/backends.def.
#pragma once

#include <pybind11/pybind11.h>

#include <iterator>
#include <string>
#include <vector>

#include "runtime/kernel/backend.h"

namespace kiln::python {

// Every backend's name, in kiln::Backend order.
inline std::vector<std::string> backend_names() {
  return std::vector<std::string>(std::begin(kBackendNames), std::end(kBackendNames));
}

// "'portable' or 'ascend'" (commas before the last one when there are more).
inline std::string backend_choices() {
  std::string text;
  for (size_t i = 0; i < kNumBackends; ++i) {
    if (i > 0) text += i + 1 == kNumBackends ? " or " : ", ";
    text += std::string("'") + kBackendNames[i] + "'";
  }
  return text;
}

// The backends named, in the given order; ValueError naming the known ones for an unknown name.
inline std::vector<Backend> parse_backends(const std::vector<std::string>& names) {
  std::vector<Backend> backends;
  for (const auto& name : names) {
    Backend backend;
    if (!backend_from_string(name, &backend)) {
      throw pybind11::value_error("unknown backend '" + name + "'; use " + backend_choices());
    }
    backends.push_back(backend);
  }
  return backends;
}

}  // namespace kiln::python
