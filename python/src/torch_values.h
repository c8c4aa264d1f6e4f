// Reads Python values (torch tensors, dtypes, numbers) for the fast call path with the Python C
// API: no pybind11 casts and no libtorch, only attribute reads through names interned once.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>

#include "torch_tensor_view.h"

namespace kiln::python {

// Each reader returns false, with no Python error left set, for a value it does not take (wrong
// type, int64 overflow, a tensor that is not dense ...): the caller then hands the whole call to
// the Python path, which accepts it or raises the error users know.

// Views a dense CPU torch tensor in `slot`, joining `call` (see TensorSlot::make_view), or, when
// the argument is taken as a row view (`row_view`, kiln/_row_views.py), a tensor whose dim-0
// rows are dense. Declines an out that partly overlaps an input (the Python path refuses it
// with torch's message) and any other strided tensor (the Python path copies it).
bool read_tensor(PyObject* value, bool is_out, bool row_view, TensorSlot& slot, CallTensors& call,
                 Tensor* tensor);

// An int (bool included, as numbers.Integral does) that fits in int64.
bool read_int(PyObject* value, int64_t* result);

// A float or an int, as a double.
bool read_double(PyObject* value, double* result);

// A torch.dtype, a torch.memory_format or torch.strided as its kiln code.
bool read_dtype(PyObject* value, int64_t* code);
bool read_memory_format(PyObject* value, int64_t* code);
bool read_layout(PyObject* value, int64_t* code);

}  // namespace kiln::python
