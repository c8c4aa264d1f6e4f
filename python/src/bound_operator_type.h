// kiln._C.BoundOperator and kiln._C.bind_operator: the Python face of BoundOperator.
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

// Adds the BoundOperator type and its factory, bind_operator, to `module`.
void bind_bound_operator(pybind11::module_& module);

}  // namespace kiln::python
