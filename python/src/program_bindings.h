// kiln._C.Program: a loaded .pte method, run on raw tensor memory that kiln/_program.py provides.
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

void bind_program(pybind11::module_& m);

}  // namespace kiln::python
