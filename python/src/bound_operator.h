// kiln._C.BoundOperator: one operator's schema bound once, so that a call maps and converts its
// Python arguments and runs the kernel in C++ (the per-call work of kiln.call_op).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel/operator_registry.h"
#include "torch_tensor_view.h"

namespace kiln::python {

// What an argument holds; the runtime's ArgKind names without "Optional" (see parse_kind).
enum class ValueKind : uint8_t {
  Tensor,
  TensorList,
  OptionalTensorList,
  Int,
  IntList,
  Double,
  DoubleList,
  Bool,
  BoolList,
  Scalar,
  String,
  ScalarType,
  MemoryFormat,
  Layout,
  Unknown,  // a kind this binder does not convert: calls take the Python path
};

struct ArgumentSpec {
  ValueKind kind;
  bool optional;  // None is a value (an "Optional..." kind)
  bool kwarg_only;
  bool is_out;
  bool has_default;  // a default kiln can use (schema defaults it cannot read have none)
  bool row_view;     // the kernels take the tensor as a row view (kiln/_row_views.py)
  pybind11::object default_value;
};

class CallFrame;  // a call's EValues and the memory they point into (bound_operator.cpp)

class BoundOperator {
 public:
  // `arguments`: (name, kind, kwarg_only, is_out, default or None, has_default, row_view) per
  // schema argument; `returns`: the argument index each returned tensor is, -1 for a new tensor;
  // `new_tensor` turns an exported new tensor into a torch tensor. A kernel's failure raises
  // kiln.KilnError (kiln_error.h).
  BoundOperator(std::string name, const pybind11::list& arguments, std::vector<int> returns,
                size_t return_slots, const std::vector<std::string>& backends,
                pybind11::object new_tensor);

  // Runs the operator on Python arguments: the outs (or self, or new tensors) as call_op returns
  // them, or NotImplemented when an argument needs the Python path (it converts or rejects it).
  // `args` is a tuple and `kwargs` a dict (the caller checks).
  pybind11::object call(pybind11::handle args, pybind11::handle out, pybind11::handle kwargs,
                        bool allow_fallback);

  const std::string& name() const { return name_; }

  BoundOperator(const BoundOperator&) = delete;
  BoundOperator& operator=(const BoundOperator&) = delete;
  ~BoundOperator();

 private:
  bool bind(CallFrame& frame, pybind11::handle args, pybind11::handle out,
            pybind11::handle kwargs) const;
  bool convert(CallFrame& frame, size_t index, PyObject* value, CallTensors& call_tensors) const;
  pybind11::object run(CallFrame& frame, bool allow_fallback);

  std::string name_;
  std::vector<ArgumentSpec> arguments_;
  std::vector<size_t> positional_;  // the arguments positional values fill, in order
  std::vector<size_t> outs_;
  pybind11::dict index_by_name_;
  std::vector<int> returns_;
  size_t return_slots_;
  bool returns_new_tensors_;
  bool convertible_;  // false when some argument has a kind this binder lacks
  std::vector<Backend> backends_;
  // The first backend's kernel when calls may run it without a lookup (see direct_kernel).
  const Kernel* direct_;
  pybind11::object new_tensor_;
  std::unique_ptr<CallFrame> frame_;
  bool busy_ = false;  // frame_ is in use (a call from another thread while the GIL is released)
};

}  // namespace kiln::python
