// kiln._C's Ascend emulator controls (built when KILN_ASCEND=emu).
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

void bind_ascend(pybind11::module_& m);

}  // namespace kiln::python
