// BoundOperator's Python type is a plain C-API type with vectorcall rather than a pybind11 class:
// pybind11's argument dispatch added about a tenth to the time of a 1-element add.
// bind_operator (pybind11: it runs once per operator) makes the objects.
#include "bound_operator_type.h"

#include <pybind11/stl.h>
#include <structmember.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "bound_operator.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

struct BoundOperatorObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  BoundOperator* op;
};

BoundOperator& op_of(PyObject* self) { return *reinterpret_cast<BoundOperatorObject*>(self)->op; }

// bound(args: tuple, out, kwargs: dict, allow_fallback: bool), positional only.
PyObject* call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  if (PyVectorcall_NARGS(nargsf) != 4 || kwnames != nullptr || !PyTuple_Check(args[0]) ||
      !PyDict_Check(args[2]) || !PyBool_Check(args[3])) {
    PyErr_SetString(PyExc_TypeError,
                    "BoundOperator takes (args: tuple, out, kwargs: dict, allow_fallback: bool)");
    return nullptr;
  }
  try {
    return op_of(self).call(args[0], args[1], args[2], args[3] == Py_True).release().ptr();
  } catch (py::error_already_set& error) {
    error.restore();
  } catch (py::builtin_exception& error) {
    error.set_error();
  } catch (const std::exception& error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  }
  return nullptr;
}

void dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  delete reinterpret_cast<BoundOperatorObject*>(self)->op;
  PyObject_Free(self);
  Py_DECREF(type);  // instances of heap types own a reference to their type
}

PyObject* get_name(PyObject* self, void*) {
  const std::string& name = op_of(self).name();
  return PyUnicode_FromStringAndSize(name.data(), static_cast<Py_ssize_t>(name.size()));
}

PyMemberDef members[] = {
    {"__vectorcalloffset__", T_PYSSIZET,
     static_cast<Py_ssize_t>(offsetof(BoundOperatorObject, vectorcall)), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyGetSetDef getters[] = {
    {"name", get_name, nullptr, "the operator, e.g. \"aten::add.out\"", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot slots[] = {
    {Py_tp_dealloc, reinterpret_cast<void*>(dealloc)},
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_members, members},
    {Py_tp_getset, getters},
    {Py_tp_doc, const_cast<char*>("An operator's schema bound once for kiln.call_op; made by "
                                  "bind_operator, called as bound(args, out, kwargs, "
                                  "allow_fallback).")},
    {0, nullptr},
};

PyType_Spec spec = {"kiln._C.BoundOperator", sizeof(BoundOperatorObject), 0,
                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL, slots};

}  // namespace

void bind_bound_operator(py::module_& module) {
  auto type = py::reinterpret_steal<py::object>(PyType_FromSpec(&spec));
  if (!type) throw py::error_already_set();
  module.add_object("BoundOperator", type);
  module.def(
      "bind_operator",
      [type](std::string name, const py::list& arguments, std::vector<int> returns,
             size_t return_slots, const std::vector<std::string>& backends, py::object new_tensor) {
        auto op = std::make_unique<BoundOperator>(std::move(name), arguments, std::move(returns),
                                                  return_slots, backends, std::move(new_tensor));
        auto* object =
            PyObject_New(BoundOperatorObject, reinterpret_cast<PyTypeObject*>(type.ptr()));
        if (object == nullptr) throw py::error_already_set();
        object->vectorcall = call;
        object->op = op.release();
        return py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(object));
      },
      py::arg("name"), py::arg("arguments"), py::arg("returns"), py::arg("return_slots"),
      py::arg("backends"), py::arg("new_tensor"));
}

}  // namespace kiln::python
