// ATen mode's call_boxed: the same Python argument protocol as boxed_call.cpp, but a torch tensor
// enters the stack as the at::Tensor it is (sharing its TensorImpl, so libtorch's kernels resize
// out tensors in place) instead of a Kiln view of its memory.
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "boxed_call.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/clock.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

std::vector<int64_t> int_vector(const py::handle& sequence) {
  std::vector<int64_t> result;
  for (const auto& item : sequence) result.push_back(item.cast<int64_t>());
  return result;
}

// Owns everything the EValues point into for the duration of one call.
class StackBuilder {
 public:
  // value: (torch_tensor, data_ptr, sizes, dtype_code, is_out), as kiln/_convert.py makes it.
  // Tensor._cdata is the address of the tensor's c10::TensorImpl; taking a new reference to it
  // gives an at::Tensor that is the Python tensor, without libtorch_python.
  static Tensor tensor(const py::tuple& value) {
    const auto address = value[0].attr("_cdata").cast<uintptr_t>();
    auto impl = c10::intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>::reclaim_copy(
        reinterpret_cast<c10::TensorImpl*>(address));
    return Tensor(std::move(impl));
  }

  EValue build(const py::str& kind_obj, const py::handle& value) {
    const std::string kind = kind_obj;
    if (kind == "none") return EValue();
    if (kind == "tensor") return EValue(tensor(value.cast<py::tuple>()));
    if (kind == "int") return EValue(value.cast<int64_t>());
    if (kind == "double") return EValue(value.cast<double>());
    if (kind == "bool") return EValue(value.cast<bool>());
    if (kind == "string")
      return EValue(std::string_view(strings_.emplace_back(value.cast<std::string>())));
    if (kind == "int_list") {
      auto& list = int_lists_.emplace_back(int_vector(value));
      return EValue(ArrayRef<int64_t>(list.data(), list.size()));
    }
    if (kind == "double_list") {
      auto& list = double_lists_.emplace_back();
      for (const auto& item : value) list.push_back(item.cast<double>());
      return EValue(ArrayRef<double>(list.data(), list.size()));
    }
    if (kind == "bool_list") {
      auto source = value.cast<py::list>();
      auto& list = bool_lists_.emplace_back(std::make_unique<bool[]>(source.size()));
      for (size_t i = 0; i < source.size(); ++i) list[i] = source[i].cast<bool>();
      return EValue(ArrayRef<bool>(list.get(), source.size()));
    }
    if (kind == "tensor_list") {
      auto& list = tensor_lists_.emplace_back();
      for (const auto& item : value.cast<py::list>())
        list.push_back(tensor(item.cast<py::tuple>()));
      return EValue(ArrayRef<Tensor>(list.data(), list.size()));
    }
    if (kind == "optional_tensor_list") {
      auto& list = optional_tensor_lists_.emplace_back();
      for (const auto& item : value.cast<py::list>()) {
        list.push_back(item.is_none() ? std::nullopt
                                      : std::optional<Tensor>(tensor(item.cast<py::tuple>())));
      }
      return EValue(ArrayRef<std::optional<Tensor>>(list.data(), list.size()));
    }
    throw py::value_error("kiln internal: unknown argument kind '" + kind + "'");
  }

 private:
  std::deque<std::string> strings_;
  std::deque<std::vector<int64_t>> int_lists_;
  std::deque<std::vector<double>> double_lists_;
  std::deque<std::unique_ptr<bool[]>> bool_lists_;
  std::deque<std::vector<Tensor>> tensor_lists_;
  std::deque<std::vector<std::optional<Tensor>>> optional_tensor_lists_;
};

}  // namespace

CallOutcome call_boxed(const std::string& name, const std::vector<std::string>& backend_names,
                       const py::list& args, int repeat) {
  if (repeat < 1) throw py::value_error("repeat must be at least 1");
  std::vector<Backend> backends;
  for (const auto& backend_name : backend_names) {
    Backend backend;
    if (!backend_from_string(backend_name, &backend)) {
      throw py::value_error("unknown backend '" + backend_name + "'; use 'portable' or 'ascend'");
    }
    backends.push_back(backend);
  }

  StackBuilder builder;
  std::vector<EValue> values;
  values.reserve(args.size());
  for (const auto& arg : args) {
    auto pair = arg.cast<py::tuple>();
    values.push_back(builder.build(pair[0], pair[1]));
  }
  std::vector<EValue*> stack;
  for (auto& value : values) stack.push_back(&value);
  Span<EValue*> stack_span(stack.data(), stack.size());

  Result<const Kernel*> kernel =
      find_kernel_for_stack(name, stack_span, ArrayRef<Backend>(backends.data(), backends.size()));
  if (!kernel.ok()) {
    return {to_string(Error::OperatorMissing),
            name + " has no registered kernel in Kiln's ATen-mode build", "", 0.0};
  }

  KernelRuntimeContext ctx;
  Error error = Error::Ok;
  uint64_t elapsed = 0;
  {
    py::gil_scoped_release release;
    const uint64_t start = monotonic_ns();
    for (int i = 0; i < repeat && error == Error::Ok; ++i) {
      error = (*kernel)->function(ctx, stack_span);
    }
    elapsed = monotonic_ns() - start;
  }
  if (error == Error::Ok) {
    return {to_string(Error::Ok), "", "aten", static_cast<double>(elapsed) / repeat};
  }
  return {to_string(error), ctx.failure_message(), "aten", 0.0};
}

}  // namespace kiln::python
