// The boxed call shared by both builds of kiln._C: turns the (kind, value) pairs that
// kiln/_convert.py makes into an EValue stack, finds the kernel and runs it. How a torch tensor
// becomes a kiln::Tensor is the only difference between lean and ATen mode: a TensorFactory.
#pragma once

#include <pybind11/pybind11.h>

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend_names.h"
#include "boxed_call.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/clock.h"
#include "thread_settings.h"

namespace kiln::python {

// Owns everything the EValues point into for the duration of one call. TensorFactory provides
// `Tensor make(const pybind11::tuple& value)` for (torch_tensor, data_ptr, sizes, dtype, is_out).
template <typename TensorFactory>
class StackBuilder {
 public:
  explicit StackBuilder(TensorFactory& tensors) : tensors_(tensors) {}

  EValue build(const std::string& kind, const pybind11::handle& value) {
    namespace py = pybind11;
    if (kind == "none") return EValue();
    if (kind == "tensor") return EValue(tensors_.make(value.cast<py::tuple>()));
    if (kind == "int") return EValue(value.cast<int64_t>());
    if (kind == "double") return EValue(value.cast<double>());
    if (kind == "bool") return EValue(value.cast<bool>());
    if (kind == "string") {
      return EValue(std::string_view(strings_.emplace_back(value.cast<std::string>())));
    }
    if (kind == "int_list") {
      auto& list = int_lists_.emplace_back();
      for (const auto& item : value) list.push_back(item.cast<int64_t>());
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
      for (const auto& item : value.cast<py::list>()) {
        list.push_back(tensors_.make(item.cast<py::tuple>()));
      }
      return EValue(ArrayRef<Tensor>(list.data(), list.size()));
    }
    if (kind == "optional_tensor_list") {
      auto& list = optional_tensor_lists_.emplace_back();
      for (const auto& item : value.cast<py::list>()) {
        list.push_back(item.is_none()
                           ? std::nullopt
                           : std::optional<Tensor>(tensors_.make(item.cast<py::tuple>())));
      }
      return EValue(ArrayRef<std::optional<Tensor>>(list.data(), list.size()));
    }
    throw py::value_error("kiln internal: unknown argument kind '" + kind + "'");
  }

 private:
  TensorFactory& tensors_;
  std::deque<std::string> strings_;
  std::deque<std::vector<int64_t>> int_lists_;
  std::deque<std::vector<double>> double_lists_;
  std::deque<std::unique_ptr<bool[]>> bool_lists_;
  std::deque<std::vector<Tensor>> tensor_lists_;
  std::deque<std::vector<std::optional<Tensor>>> optional_tensor_lists_;
};

// A tensor a kernel returned (a functional op's new tensor), copied out for Python as (sizes,
// strides, dtype code, bytes): its memory (the call's temp memory in lean mode) ends with the call.
// The tensor is dense, as kernels make them.
inline pybind11::object export_tensor(const Tensor& tensor) {
  namespace py = pybind11;
  if (!tensor.defined()) return py::none();
  py::tuple sizes(tensor.dim());
  py::tuple strides(tensor.dim());
  for (int64_t d = 0; d < tensor.dim(); ++d) {
    sizes[static_cast<size_t>(d)] = tensor.sizes()[static_cast<size_t>(d)];
    strides[static_cast<size_t>(d)] = tensor.strides()[static_cast<size_t>(d)];
  }
  const auto* data = static_cast<const char*>(tensor.const_data_ptr());
  return py::make_tuple(sizes, strides, static_cast<int>(tensor.scalar_type()),
                        py::bytes(data, tensor.nbytes()));
}

// Builds the stack, runs the operator by backend preference (call_operator: a kernel that
// declines the inputs falls back to the next backend unless `allow_fallback` is false) and then
// `repeat - 1` more times on the kernel that served, with the GIL released. The last
// `new_results` stack values (a functional op's return slots) come back in CallOutcome::results
// (export_tensor). TensorFactory also
// provides `std::string failure_detail()` (appended to a kernel's message) and `MemoryAllocator*
// temp_allocator()`.
template <typename TensorFactory>
CallOutcome run_boxed_call(const std::string& name, const std::vector<std::string>& backend_names,
                           const pybind11::list& args, int repeat, bool allow_fallback,
                           int new_results, TensorFactory& tensors) {
  namespace py = pybind11;
  if (repeat < 1) throw py::value_error("repeat must be at least 1");
  if (new_results < 0 || static_cast<size_t>(new_results) > args.size()) {
    throw py::value_error("kiln internal: new_results exceeds the arguments");
  }
  const std::vector<Backend> backends = parse_backends(backend_names);

  StackBuilder<TensorFactory> builder(tensors);
  std::vector<EValue> values;
  values.reserve(args.size());
  for (const auto& arg : args) {
    auto pair = arg.cast<py::tuple>();
    values.push_back(builder.build(pair[0].cast<std::string>(), pair[1]));
  }
  std::vector<EValue*> stack;
  for (auto& value : values) stack.push_back(&value);
  Span<EValue*> stack_span(stack.data(), stack.size());

  // The first call resolves the backend (and any fallback); repeats run the kernel that served.
  KernelRuntimeContext ctx(tensors.temp_allocator());
  const std::shared_ptr<ThreadPool> pool = current_thread_pool();  // kiln.set_num_threads
  ctx.set_thread_pool(pool.get());
  const Kernel* served = nullptr;
  Error error = Error::Ok;
  uint64_t elapsed = 0;
  {
    py::gil_scoped_release release;
    const uint64_t start = monotonic_ns();
    error =
        call_operator(ctx, name, stack_span, ArrayRef<Backend>(backends.data(), backends.size()),
                      allow_fallback, &served);
    // Each repeat reuses the last one's temporaries, as the executor's calls do.
    for (int i = 1; i < repeat && error == Error::Ok; ++i) {
      ctx.reset_temp();
      error = served->call(ctx, stack_span);
    }
    elapsed = monotonic_ns() - start;
  }
  const std::string backend = served != nullptr ? to_string(served->backend) : "";
  if (error == Error::Ok) {
    py::list results;
    for (size_t i = values.size() - static_cast<size_t>(new_results); i < values.size(); ++i) {
      results.append(values[i].isTensor() ? export_tensor(values[i].toTensor()) : py::none());
    }
    return {to_string(Error::Ok), "", backend, static_cast<double>(elapsed) / repeat, results};
  }
  return {to_string(error), ctx.failure_message() + tensors.failure_detail(), backend, 0.0,
          py::list()};
}

}  // namespace kiln::python
