// kiln.KilnError as the extension's one exception type: the bindings raise it with the runtime's
// Error name and the message as separate fields (error.code, str(error)), never as one string.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "runtime/core/error.h"

namespace kiln::python {

// kiln.KilnError, defined in kiln/_errors.py (pure Python, so importing it here cannot cycle back
// into the extension). kiln._C and kiln._C_aten share it: one class for users to catch.
inline pybind11::handle kiln_error_type() {
  static pybind11::handle type =
      pybind11::object(pybind11::module_::import("kiln._errors").attr("KilnError")).release();
  return type;
}

// Raises kiln.KilnError(message, code=to_string(code)); call with the GIL held.
[[noreturn]] inline void raise_kiln_error(Error code, const std::string& message) {
  pybind11::object error = kiln_error_type()(message, to_string(code));
  PyErr_SetObject(kiln_error_type().ptr(), error.ptr());
  throw pybind11::error_already_set();
}

// Exposes the class as kiln._C.KilnError (the same object as kiln.KilnError).
inline void bind_kiln_error(pybind11::module_& m) { m.attr("KilnError") = kiln_error_type(); }

}  // namespace kiln::python
