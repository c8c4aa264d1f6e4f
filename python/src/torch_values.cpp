// The fast path's readers of torch and Python values. Each Python object is read once per call
// through the C API; the names and torch objects it compares against are looked up on first use.
#include "torch_values.h"

#include <utility>
#include <vector>

#include "runtime/core/dim_order.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

using Codes = std::vector<std::pair<PyObject*, int64_t>>;

// What the readers compare against: torch.Tensor, the dtype and memory format objects with their
// kiln codes (from kiln/_convert.py, the one table of them), and interned attribute names.
struct TorchObjects {
  PyTypeObject* tensor_type;
  Codes dtypes;
  Codes memory_formats;
  PyObject* strided;
  PyObject* channels_last;
  PyObject* channels_last_3d;
  PyObject* is_cpu;
  PyObject* dtype;
  PyObject* shape;
  PyObject* stride;
  PyObject* data_ptr;
  PyObject* is_contiguous;
  PyObject* memory_format_keyword;  // ("memory_format",), kwnames for is_contiguous
};

Codes codes_of(const py::dict& table) {
  Codes codes;
  for (const auto& [key, code] : table) codes.emplace_back(key.ptr(), code.cast<int64_t>());
  return codes;
}

PyObject* intern(const char* name) { return PyUnicode_InternFromString(name); }

// Loaded on first use, with the GIL held, and kept for the life of the process. The dtype and
// memory format objects are torch's singletons, alive as long as torch is.
const TorchObjects& torch_objects() {
  static py::gil_safe_call_once_and_store<TorchObjects> storage;
  return storage
      .call_once_and_store_result([] {
        py::module_ torch = py::module_::import("torch");
        py::module_ convert = py::module_::import("kiln._convert");
        TorchObjects objects{};
        objects.tensor_type =
            reinterpret_cast<PyTypeObject*>(py::object(torch.attr("Tensor")).release().ptr());
        objects.dtypes = codes_of(convert.attr("DTYPE_CODES"));
        objects.memory_formats = codes_of(convert.attr("MEMORY_FORMAT_CODES"));
        objects.strided = py::object(torch.attr("strided")).release().ptr();
        objects.channels_last = py::object(torch.attr("channels_last")).release().ptr();
        objects.channels_last_3d = py::object(torch.attr("channels_last_3d")).release().ptr();
        objects.is_cpu = intern("is_cpu");
        objects.dtype = intern("dtype");
        objects.shape = intern("shape");
        objects.stride = intern("stride");
        objects.data_ptr = intern("data_ptr");
        objects.is_contiguous = intern("is_contiguous");
        objects.memory_format_keyword = py::make_tuple("memory_format").release().ptr();
        return objects;
      })
      .get_stored();
}

bool decline() {
  PyErr_Clear();
  return false;
}

bool find_code(const Codes& codes, PyObject* value, int64_t* code) {
  for (const auto& [object, number] : codes) {
    if (object == value) {
      *code = number;
      return true;
    }
  }
  return false;
}

py::object steal(PyObject* object) { return py::reinterpret_steal<py::object>(object); }

// torch's rule for is_contiguous(): dims of size 1 may have any stride; an empty tensor is.
bool is_contiguous(const SizesType* sizes, const StridesType* strides, size_t dim) {
  int64_t expected = 1;
  for (size_t i = dim; i-- > 0;) {
    if (sizes[i] == 0) return true;
  }
  for (size_t i = dim; i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

// kiln/_row_views.py's is_row_view: at least 2 dims, those after the first dense (size-1 dims may
// have any stride), a dim-0 stride that is not negative; `disjoint`: and rows that do not overlap.
bool is_row_view(const SizesType* sizes, const StridesType* strides, size_t dim, bool disjoint) {
  int64_t expected = 1;
  for (size_t i = dim; i-- > 1;) {
    if (sizes[i] != 1 && strides[i] != expected) return false;
    expected *= sizes[i];
  }
  if (dim < 2 || strides[0] < 0) return false;  // a 1-dim view is dense or copied
  return !disjoint || sizes[0] <= 1 || strides[0] >= expected;
}

// value.is_contiguous(memory_format=format), asked of torch itself (rare: non-default layouts).
bool is_contiguous_as(PyObject* value, PyObject* format) {
  const TorchObjects& torch = torch_objects();
  PyObject* args[] = {value, format};
  py::object answer =
      steal(PyObject_VectorcallMethod(torch.is_contiguous, args, 1, torch.memory_format_keyword));
  return answer.ptr() == Py_True;
}

// The dim order of a dense tensor, as kiln/_convert.py's _dim_order: contiguous or channels last.
bool find_dim_order(PyObject* value, const SizesType* sizes, const StridesType* strides, size_t dim,
                    DimOrderType* dim_order) {
  const TorchObjects& torch = torch_objects();
  if (is_contiguous(sizes, strides, dim)) {
    for (size_t i = 0; i < dim; ++i) dim_order[i] = static_cast<DimOrderType>(i);
    return true;
  }
  const bool channels_last = (dim == 4 && is_contiguous_as(value, torch.channels_last)) ||
                             (dim == 5 && is_contiguous_as(value, torch.channels_last_3d));
  if (!channels_last) return false;
  dim_order[0] = 0;
  for (size_t i = 1; i + 1 < dim; ++i) dim_order[i] = static_cast<DimOrderType>(i + 1);
  dim_order[dim - 1] = 1;
  return true;
}

}  // namespace

bool read_tensor(PyObject* value, bool is_out, bool row_view, TensorSlot& slot, CallTensors& call,
                 Tensor* tensor) {
  const TorchObjects& torch = torch_objects();
  if (!PyObject_TypeCheck(value, torch.tensor_type)) return false;
  if (steal(PyObject_GetAttr(value, torch.is_cpu)).ptr() != Py_True) return decline();
  int64_t dtype = 0;
  py::object dtype_object = steal(PyObject_GetAttr(value, torch.dtype));
  if (!find_code(torch.dtypes, dtype_object.ptr(), &dtype)) return decline();
  py::object shape = steal(PyObject_GetAttr(value, torch.shape));
  py::object strides = steal(PyObject_CallMethodNoArgs(value, torch.stride));
  if (!shape || !strides || !PyTuple_Check(shape.ptr()) || !PyTuple_Check(strides.ptr()))
    return decline();
  const auto dim = static_cast<size_t>(PyTuple_GET_SIZE(shape.ptr()));
  if (dim > kTensorDimensionLimit ||
      PyTuple_GET_SIZE(strides.ptr()) != PyTuple_GET_SIZE(shape.ptr()))
    return decline();
  std::array<StridesType, kTensorDimensionLimit> torch_strides{};
  for (size_t i = 0; i < dim; ++i) {
    slot.sizes[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape.ptr(), i));
    torch_strides[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(strides.ptr(), i));
  }
  if (PyErr_Occurred()) return decline();
  const bool dense =
      find_dim_order(value, slot.sizes.data(), torch_strides.data(), dim, slot.dim_order.data());
  // An out whose rows overlap (an expanded one) goes to the Python path, which refuses it.
  const bool rows = !dense && row_view &&
                    is_row_view(slot.sizes.data(), torch_strides.data(), dim, /*disjoint=*/is_out);
  if (!dense && !rows) return decline();  // the full path copies it
  if (rows) fill_default_dim_order({slot.dim_order.data(), dim});
  if (!slot.compute_strides(dim)) return decline();  // the full path explains
  if (rows) slot.set_row_stride(torch_strides[0]);
  py::object data = steal(PyObject_CallMethodNoArgs(value, torch.data_ptr));
  if (!data) return decline();
  void* address = PyLong_AsVoidPtr(data.ptr());
  if (PyErr_Occurred()) return decline();
  return slot.make_view(py::reinterpret_borrow<py::object>(value), address,
                        static_cast<ScalarType>(dtype), dim, is_out, call,
                        tensor) != Overlap::Partial;
}

bool read_int(PyObject* value, int64_t* result) {
  if (!PyLong_Check(value)) return false;
  int overflow = 0;
  const long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow != 0 || (number == -1 && PyErr_Occurred())) return decline();
  *result = number;
  return true;
}

bool read_double(PyObject* value, double* result) {
  if (PyFloat_Check(value)) {
    *result = PyFloat_AS_DOUBLE(value);
    return true;
  }
  if (!PyLong_Check(value)) return false;
  const double number = PyLong_AsDouble(value);
  if (number == -1.0 && PyErr_Occurred()) return decline();
  *result = number;
  return true;
}

bool read_dtype(PyObject* value, int64_t* code) {
  return find_code(torch_objects().dtypes, value, code);
}

bool read_memory_format(PyObject* value, int64_t* code) {
  return find_code(torch_objects().memory_formats, value, code);
}

bool read_layout(PyObject* value, int64_t* code) {
  if (value != torch_objects().strided) return false;
  *code = 0;
  return true;
}

}  // namespace kiln::python
