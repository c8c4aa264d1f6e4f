// BoundOperator: the schema is read once (kinds parsed, argument names indexed, defaults made);
// a call only maps its values onto the schema's slots, reads them into the reused CallFrame and
// runs the kernel. Whatever it does not take goes back to kiln/_call.py as NotImplemented.
#include "bound_operator.h"

#include <string_view>
#include <utility>

#include "backend_names.h"
#include "call_frame.h"
#include "kiln_error.h"
#include "runtime/kernel/operator_registry.h"
#include "stack_builder.h"
#include "thread_settings.h"
#include "torch_values.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

// Below this much tensor data the kernel takes less time than releasing and retaking the GIL.
constexpr size_t kReleaseGilBytes = size_t{1} << 16;

constexpr std::string_view kOptional = "Optional";

// The runtime's ArgKind name ("Tensor", "OptionalIntList" ...) as a ValueKind and whether None is
// a value. "OptionalTensorList" is a list of optional tensors, not an optional list.
ValueKind parse_kind(std::string_view kind, bool* optional) {
  *optional = kind != "OptionalTensorList" && kind.substr(0, kOptional.size()) == kOptional;
  if (*optional) kind.remove_prefix(kOptional.size());
  static constexpr std::pair<std::string_view, ValueKind> kKinds[] = {
      {"Tensor", ValueKind::Tensor},
      {"TensorList", ValueKind::TensorList},
      {"OptionalTensorList", ValueKind::OptionalTensorList},
      {"Int", ValueKind::Int},
      {"IntList", ValueKind::IntList},
      {"Double", ValueKind::Double},
      {"DoubleList", ValueKind::DoubleList},
      {"Bool", ValueKind::Bool},
      {"BoolList", ValueKind::BoolList},
      {"Scalar", ValueKind::Scalar},
      {"String", ValueKind::String},
      {"ScalarType", ValueKind::ScalarType},
      {"MemoryFormat", ValueKind::MemoryFormat},
      {"Layout", ValueKind::Layout},
  };
  for (const auto& [name, value] : kKinds) {
    if (name == kind) return value;
  }
  return ValueKind::Unknown;
}

// The items of a list or tuple (borrowed), or false for any other value.
bool items_of(PyObject* value, PyObject*** items, size_t* size) {
  if (!PyList_Check(value) && !PyTuple_Check(value)) return false;
  *items = PySequence_Fast_ITEMS(value);
  *size = static_cast<size_t>(PySequence_Fast_GET_SIZE(value));
  return true;
}

bool read_scalar(PyObject* value, EValue* result) {
  if (PyBool_Check(value)) {
    *result = EValue(value == Py_True);
    return true;
  }
  if (PyFloat_Check(value)) {
    *result = EValue(PyFloat_AS_DOUBLE(value));
    return true;
  }
  int64_t number = 0;
  if (!read_int(value, &number)) return false;
  *result = EValue(number);
  return true;
}

// The first backend's kernel when a call can run it without a lookup: the operator has no
// kernel keys (which call_operator derives from the stack) and that backend has a kernel. Null
// otherwise: calls then go through call_operator by name, which also records "no kernel"
// fallbacks.
const Kernel* direct_kernel(const std::string& name, const std::vector<Backend>& backends) {
  if (backends.empty()) return nullptr;
  for (size_t i = 0; i < registered_kernel_count(); ++i) {
    const Kernel& kernel = registered_kernel(i);
    if (kernel.key[0] != '\0' && name == kernel.name) return nullptr;
  }
  Result<const Kernel*> kernel = find_kernel(name, "", ArrayRef<Backend>(backends.data(), 1));
  return kernel.ok() ? *kernel : nullptr;
}

// Marks the frame in use for one call and, whatever way the call ends, ends it.
class FrameUse {
 public:
  FrameUse(CallFrame& frame, bool* busy) : frame_(frame), busy_(busy) {
    if (busy_ != nullptr) *busy_ = true;
    frame_.begin();
  }
  ~FrameUse() {
    frame_.end();
    if (busy_ != nullptr) *busy_ = false;
  }
  FrameUse(const FrameUse&) = delete;
  FrameUse& operator=(const FrameUse&) = delete;

 private:
  CallFrame& frame_;
  bool* busy_;
};

}  // namespace

BoundOperator::BoundOperator(std::string name, const py::list& arguments, std::vector<int> returns,
                             size_t return_slots, const std::vector<std::string>& backends,
                             py::object new_tensor)
    : name_(std::move(name)),
      returns_(std::move(returns)),
      return_slots_(return_slots),
      convertible_(true),
      backends_(parse_backends(backends)),
      direct_(direct_kernel(name_, backends_)),
      new_tensor_(std::move(new_tensor)) {
  for (const auto& item : arguments) {
    const auto entry = item.cast<py::tuple>();
    ArgumentSpec spec{};
    spec.kind = parse_kind(entry[1].cast<std::string>(), &spec.optional);
    spec.kwarg_only = entry[2].cast<bool>();
    spec.is_out = entry[3].cast<bool>();
    spec.default_value = entry[4];
    spec.has_default = entry[5].cast<bool>();
    spec.row_view = entry[6].cast<bool>();
    convertible_ = convertible_ && spec.kind != ValueKind::Unknown;
    const size_t index = arguments_.size();
    if (spec.is_out) {
      outs_.push_back(index);
    } else if (!spec.kwarg_only) {
      positional_.push_back(index);
    }
    index_by_name_[entry[0]] = index;
    arguments_.push_back(std::move(spec));
  }
  for (const int index : returns_) {
    if (index >= static_cast<int>(arguments_.size())) {
      throw py::value_error("kiln internal: a return names no argument of " + name_);
    }
  }
  returns_new_tensors_ = true;
  for (const int index : returns_) returns_new_tensors_ = returns_new_tensors_ && index < 0;
  frame_ = std::make_unique<CallFrame>(arguments_.size(), return_slots_);
}

BoundOperator::~BoundOperator() = default;

py::object BoundOperator::call(py::handle args, py::handle out, py::handle kwargs,
                               bool allow_fallback) {
  if (!convertible_) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  // A call while the frame is in use (another thread, during a kernel that released the GIL)
  // gets a frame of its own.
  std::unique_ptr<CallFrame> own;
  if (busy_) own = std::make_unique<CallFrame>(arguments_.size(), return_slots_);
  CallFrame& frame = own ? *own : *frame_;
  FrameUse use(frame, own ? nullptr : &busy_);
  if (!bind(frame, args, out, kwargs)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  CallTensors call_tensors;
  for (size_t i = 0; i < arguments_.size(); ++i) {
    PyObject* value = frame.bound[i];
    if (value == nullptr) {
      if (arguments_[i].is_out || !arguments_[i].has_default) {
        return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      }
      value = arguments_[i].default_value.ptr();
    }
    if (!convert(frame, i, value, call_tensors))
      return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  }
  return run(frame, allow_fallback);
}

// Positional values fill the positional arguments in order, then keywords by name, then out=
// (a tuple or list for several outs) the out arguments, as kiln/_call.py's _bind does.
bool BoundOperator::bind(CallFrame& frame, py::handle args, py::handle out,
                         py::handle kwargs) const {
  const auto given = static_cast<size_t>(PyTuple_GET_SIZE(args.ptr()));
  if (given > positional_.size()) return false;
  for (size_t i = 0; i < given; ++i) frame.bound[positional_[i]] = PyTuple_GET_ITEM(args.ptr(), i);
  Py_ssize_t position = 0;
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  while (PyDict_Next(kwargs.ptr(), &position, &key, &value)) {
    PyObject* index = PyDict_GetItemWithError(index_by_name_.ptr(), key);
    if (index == nullptr) {
      PyErr_Clear();
      return false;
    }
    PyObject*& slot = frame.bound[PyLong_AsSize_t(index)];
    if (slot != nullptr) return false;
    slot = value;
  }
  if (out.is_none()) return true;
  PyObject** items = nullptr;
  size_t count = 0;
  if (!items_of(out.ptr(), &items, &count)) {
    if (outs_.size() != 1) return false;
    frame.bound[outs_[0]] = out.ptr();
    return true;
  }
  if (count != outs_.size()) return false;
  for (size_t i = 0; i < count; ++i) frame.bound[outs_[i]] = items[i];
  return true;
}

bool BoundOperator::convert(CallFrame& frame, size_t index, PyObject* value,
                            CallTensors& call_tensors) const {
  const ArgumentSpec& spec = arguments_[index];
  EValue& result = frame.values[index];
  if (value == Py_None && spec.optional) return true;  // the frame's values start as None
  PyObject** items = nullptr;
  size_t size = 0;
  switch (spec.kind) {
    case ValueKind::Tensor: {
      TensorSlot& slot = frame.tensor_slot();
      Tensor tensor;
      if (!read_tensor(value, spec.is_out, spec.row_view, slot, call_tensors, &tensor)) {
        return false;
      }
      frame.bytes += tensor.nbytes();
      result = EValue(tensor);
      return true;
    }
    case ValueKind::TensorList:
    case ValueKind::OptionalTensorList: {
      if (!items_of(value, &items, &size)) return false;
      const bool optional = spec.kind == ValueKind::OptionalTensorList;
      auto& tensors = frame.tensor_list();
      auto& optionals = frame.optional_tensor_list();
      for (size_t i = 0; i < size; ++i) {
        if (optional && items[i] == Py_None) {
          optionals.emplace_back();
          continue;
        }
        Tensor tensor;
        if (!read_tensor(items[i], spec.is_out && !optional, /*row_view=*/false,
                         frame.tensor_slot(), call_tensors, &tensor))
          return false;
        frame.bytes += tensor.nbytes();
        if (optional) {
          optionals.emplace_back(tensor);
        } else {
          tensors.push_back(tensor);
        }
      }
      result = optional ? EValue(ArrayRef<std::optional<Tensor>>(optionals.data(), size))
                        : EValue(ArrayRef<Tensor>(tensors.data(), size));
      return true;
    }
    case ValueKind::Int:
    case ValueKind::ScalarType:
    case ValueKind::MemoryFormat:
    case ValueKind::Layout: {
      int64_t number = 0;
      const bool read = spec.kind == ValueKind::Int            ? read_int(value, &number)
                        : spec.kind == ValueKind::ScalarType   ? read_dtype(value, &number)
                        : spec.kind == ValueKind::MemoryFormat ? read_memory_format(value, &number)
                                                               : read_layout(value, &number);
      if (!read) return false;
      result = EValue(number);
      return true;
    }
    case ValueKind::IntList: {
      auto& list = frame.int_list();
      if (!items_of(value, &items, &size)) {
        items = &value;  // one int stands for a list of it, as in kiln/_convert.py
        size = 1;
      }
      list.resize(size);
      for (size_t i = 0; i < size; ++i) {
        if (!read_int(items[i], &list[i])) return false;
      }
      result = EValue(ArrayRef<int64_t>(list.data(), size));
      return true;
    }
    case ValueKind::Double: {
      double number = 0;
      if (!read_double(value, &number)) return false;
      result = EValue(number);
      return true;
    }
    case ValueKind::DoubleList: {
      if (!items_of(value, &items, &size)) return false;
      auto& list = frame.double_list();
      list.resize(size);
      for (size_t i = 0; i < size; ++i) {
        if (!read_double(items[i], &list[i])) return false;
      }
      result = EValue(ArrayRef<double>(list.data(), size));
      return true;
    }
    case ValueKind::Bool:
      if (!PyBool_Check(value)) return false;
      result = EValue(value == Py_True);
      return true;
    case ValueKind::BoolList: {
      if (!items_of(value, &items, &size)) return false;
      bool* list = frame.bool_list(size);
      for (size_t i = 0; i < size; ++i) {
        if (!PyBool_Check(items[i])) return false;
        list[i] = items[i] == Py_True;
      }
      result = EValue(ArrayRef<bool>(list, size));
      return true;
    }
    case ValueKind::Scalar:
      return read_scalar(value, &result);
    case ValueKind::String: {
      if (!PyUnicode_Check(value)) return false;
      Py_ssize_t length = 0;
      const char* text = PyUnicode_AsUTF8AndSize(value, &length);
      if (text == nullptr) {
        PyErr_Clear();
        return false;
      }
      result = EValue(std::string_view(text, static_cast<size_t>(length)));
      return true;
    }
    case ValueKind::Unknown:
      return false;
  }
  return false;
}

// Runs the kernel by backend preference (call_operator: declines fall back unless
// `allow_fallback` is false) and returns what call_op returns.
py::object BoundOperator::run(CallFrame& frame, bool allow_fallback) {
  KernelRuntimeContext ctx(&frame.temp);
  const std::shared_ptr<ThreadPool> pool = current_thread_pool();  // kiln.set_num_threads
  ctx.set_thread_pool(pool.get());
  const Span<EValue*> stack(frame.stack.data(), frame.stack.size());
  const ArrayRef<Backend> backends(backends_.data(), backends_.size());
  // The direct kernel runs as call_operator would run it first. If it declines the inputs (it
  // wrote nothing), call_operator redoes the call with the fallbacks and their records.
  const auto dispatch = [&] {
    if (direct_ != nullptr) {
      const Error error = direct_->call(ctx, stack);
      if (error != Error::KernelDeclined) return error;
      ctx.reset_failure();
    }
    return call_operator(ctx, name_, stack, backends, allow_fallback);
  };
  Error error = Error::Ok;
  if (frame.bytes >= kReleaseGilBytes) {
    py::gil_scoped_release release;
    error = dispatch();
  } else {
    error = dispatch();
  }
  if (error != Error::Ok) {
    raise_kiln_error(error, std::string(ctx.failure_message()) + frame.failure_detail());
  }
  std::vector<py::object> results;
  if (returns_new_tensors_) {
    for (size_t i = frame.values.size() - return_slots_; i < frame.values.size(); ++i) {
      const EValue& value = frame.values[i];
      results.push_back(
          new_tensor_(value.isTensor() ? export_tensor(value.toTensor()) : py::none()));
    }
  } else {
    for (const int index : returns_) {
      if (index >= 0) results.push_back(py::reinterpret_borrow<py::object>(frame.bound[index]));
    }
  }
  if (results.size() == 1) return results[0];
  py::tuple tuple(results.size());
  for (size_t i = 0; i < results.size(); ++i) tuple[i] = results[i];
  return tuple;
}

}  // namespace kiln::python
