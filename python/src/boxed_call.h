// Builds an EValue stack from Python values (torch tensors viewed in place) and runs a kernel.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace kiln::python {

// Outcome of a boxed call: error code name ("Ok" on success) and the kernel's message.
struct CallOutcome {
  std::string error;
  std::string message;
  std::string backend;  // backend whose kernel ran
  double ns_per_call;   // mean kernel time over the repeats (lookup excluded)
  // The new tensors a functional op returned, as (sizes, strides, dtype code, bytes) tuples.
  pybind11::list results;
};

// `args` is a list of (kind, value) pairs prepared by kiln/__init__.py, in schema order. See
// boxed_call.cpp for the kinds. `backends` is the preference list by name. The kernel runs
// `repeat` times on the same stack (benchmarks use repeat > 1). The last `new_results` arguments
// are return slots whose tensors come back in CallOutcome::results.
CallOutcome call_boxed(const std::string& name, const std::vector<std::string>& backends,
                       const pybind11::list& args, int repeat, bool allow_fallback,
                       int new_results);

}  // namespace kiln::python
