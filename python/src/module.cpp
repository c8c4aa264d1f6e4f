// kiln._C (kiln._C_aten in ATen mode): registers the built-in operator library and exposes calls
// and registry queries.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "RegisterKernels.h"
#include "backend_names.h"
#include "boxed_call.h"
#include "kiln_error.h"
#if !KILN_ATEN_MODE
#include "bound_operator_type.h"
#include "program_bindings.h"
#endif
#if KILN_PYTHON_ASCEND_EMU
#include "ascend_bindings.h"
#endif
#include "runtime/kernel/operator_registry.h"
#include "runtime/kernel/random_generator.h"
#include "runtime/platform/last_error.h"
#include "thread_settings.h"

namespace py = pybind11;

#ifndef KILN_PYTHON_MODULE
#define KILN_PYTHON_MODULE _C
#endif
// The operator library's registration function: another library's (tests/fuzz builds the module
// over its operator subset) is named by the build.
#ifndef KILN_PYTHON_REGISTER_KERNELS
#define KILN_PYTHON_REGISTER_KERNELS register_kiln_all_ops_kernels
#endif

PYBIND11_MODULE(KILN_PYTHON_MODULE, m) {
  m.doc() = "Kiln runtime bindings (use the kiln package, not this module)";
  if (kiln::Error error = KILN_PYTHON_REGISTER_KERNELS(); error != kiln::Error::Ok) {
    throw py::import_error(std::string("kiln: kernel registration failed: ") + kiln::last_error());
  }
  kiln::python::bind_kiln_error(m);

  // Module-local: kiln._C and kiln._C_aten both bind this C++ type in one process.
  py::class_<kiln::python::CallOutcome>(m, "CallOutcome", py::module_local())
      .def_readonly("error", &kiln::python::CallOutcome::error)
      .def_readonly("message", &kiln::python::CallOutcome::message)
      .def_readonly("backend", &kiln::python::CallOutcome::backend)
      .def_readonly("ns_per_call", &kiln::python::CallOutcome::ns_per_call)
      .def_readonly("results", &kiln::python::CallOutcome::results);
  m.def("call_boxed", &kiln::python::call_boxed, py::arg("name"), py::arg("backends"),
        py::arg("args"), py::arg("repeat") = 1, py::arg("allow_fallback") = true,
        py::arg("new_results") = 0);
  // Backend names in kiln::Backend order (runtime/kernel/backends.def).
  m.def("backends", &kiln::python::backend_names);
  m.def("promote_types", [](int a, int b) {
    return static_cast<int>(
        kiln::promote_types(static_cast<kiln::ScalarType>(a), static_cast<kiln::ScalarType>(b)));
  });

  m.def("registered_kernels", [] {
    py::list kernels;
    for (size_t i = 0; i < kiln::registered_kernel_count(); ++i) {
      const kiln::Kernel& kernel = kiln::registered_kernel(i);
      py::dict entry;
      entry["name"] = kernel.name;
      entry["backend"] = kiln::to_string(kernel.backend);
      entry["key"] = kernel.key[0] != '\0' ? kernel.key : "default";
      entry["origin"] = kernel.origin;
      kernels.append(entry);
    }
    return kernels;
  });

  m.def("fallback_records", [] {
    kiln::FallbackRecord records[64];
    const size_t count = kiln::fallback_records(records);
    py::list result;
    for (size_t i = 0; i < count && i < 64; ++i) {
      result.append(py::make_tuple(records[i].name, kiln::to_string(records[i].requested),
                                   kiln::to_string(records[i].served_by), records[i].count,
                                   records[i].reason));
    }
    return result;
  });
  m.def("reset_fallback_stats", &kiln::reset_fallback_stats);
  // Seeds the default generator the random kernels draw from (in ATen mode, libtorch's too).
  m.def("set_random_seed", &kiln::set_random_seed, py::arg("seed"));
  m.def("set_num_threads", &kiln::python::set_num_threads, py::arg("num_threads"));
  m.def("get_num_threads", &kiln::python::get_num_threads);
  m.attr("MAX_THREADS") = kiln::python::max_threads();

  // The runtime's structured missing-operator report for (name, key) requests.
  m.def("missing_operators", [](const std::vector<std::pair<std::string, std::string>>& requests,
                                const std::vector<std::string>& backend_names) {
    const std::vector<kiln::Backend> backends = kiln::python::parse_backends(backend_names);
    std::vector<kiln::OperatorRequest> ops;
    for (const auto& [name, key] : requests) ops.push_back({name.c_str(), key.c_str()});
    std::vector<kiln::MissingOperator> missing(ops.size());
    const size_t count =
        kiln::find_missing_operators({ops.data(), ops.size()}, {backends.data(), backends.size()},
                                     {missing.data(), missing.size()});
    py::list report;
    for (size_t i = 0; i < count; ++i) {
      py::dict entry;
      entry["index"] = missing[i].index;
      entry["op"] = missing[i].name;
      entry["key"] = missing[i].key[0] != '\0' ? missing[i].key : "default";
      py::list searched;
      for (const auto& name : backend_names) searched.append(name);
      entry["backends_searched"] = searched;
      entry["cause"] = kiln::to_string(missing[i].cause);
      report.append(entry);
    }
    return report;
  });

#if !KILN_ATEN_MODE
  kiln::python::bind_bound_operator(m);  // kiln.call_op's fast path
  kiln::python::bind_program(m);
#endif
#if KILN_PYTHON_ASCEND_EMU
  kiln::python::bind_ascend(m);
#endif
}
