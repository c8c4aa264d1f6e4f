// Converts tagged Python arguments into EValues over the callers' memory and runs the kernel.
#include "boxed_call.h"

#include <array>
#include <cstdlib>
#include <deque>
#include <memory>
#include <optional>

#include "runtime/core/dim_order.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/clock.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

// Metadata for one torch tensor seen as a Kiln tensor. Out tensors resize through torch.
struct TensorSlot {
  std::array<SizesType, kTensorDimensionLimit> sizes{};
  std::array<DimOrderType, kTensorDimensionLimit> dim_order{};
  std::array<StridesType, kTensorDimensionLimit> strides{};
  std::optional<TensorImpl> impl;
  py::object torch_tensor;
  std::string resize_error;
};

// Heap-backed temp memory for kernels called from Python; freed when the call ends.
class HeapTempAllocator : public MemoryAllocator {
 public:
  HeapTempAllocator() : MemoryAllocator(nullptr, 0) {}
  ~HeapTempAllocator() override { reset(); }
  void* allocate(size_t size, size_t alignment) override {
    void* memory = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
    if (memory != nullptr) blocks_.push_back(memory);
    return memory;
  }
  void reset() override {
    for (void* block : blocks_) std::free(block);
    blocks_.clear();
  }

 private:
  std::vector<void*> blocks_;
};

void set_dense_metadata(TensorSlot& slot, size_t dim) {
  fill_default_dim_order({slot.dim_order.data(), dim});
  (void)dim_order_to_strides({slot.sizes.data(), dim}, {slot.dim_order.data(), dim},
                             {slot.strides.data(), dim});
}

Error resize_through_torch(TensorImpl& impl, ArrayRef<SizesType> sizes, void* user) {
  auto& slot = *static_cast<TensorSlot*>(user);
  if (sizes.size() > kTensorDimensionLimit) return Error::NotSupported;
  py::gil_scoped_acquire gil;
  try {
    py::tuple shape(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) shape[i] = sizes[i];
    slot.torch_tensor.attr("resize_")(shape);
    const auto data = slot.torch_tensor.attr("data_ptr")().cast<uintptr_t>();
    for (size_t i = 0; i < sizes.size(); ++i) slot.sizes[i] = sizes[i];
    set_dense_metadata(slot, sizes.size());
    impl.set_metadata_arrays(sizes.size(), slot.sizes.data(), slot.dim_order.data(),
                             slot.strides.data());
    impl.set_storage(reinterpret_cast<void*>(data), impl.nbytes());
  } catch (py::error_already_set& e) {
    slot.resize_error = e.what();
    return Error::NotSupported;
  }
  return Error::Ok;
}

std::vector<int64_t> int_vector(const py::handle& sequence) {
  std::vector<int64_t> result;
  for (const auto& item : sequence) result.push_back(item.cast<int64_t>());
  return result;
}

// Owns everything the EValues point into for the duration of one call.
class StackBuilder {
 public:
  // value: (torch_tensor, data_ptr, sizes, dtype_code, is_out)
  Tensor tensor(const py::tuple& value) {
    TensorSlot& slot = slots_.emplace_back();
    slot.torch_tensor = value[0];
    const auto data = value[1].cast<uintptr_t>();
    const auto sizes = int_vector(value[2]);
    const auto dtype = static_cast<ScalarType>(value[3].cast<int>());
    const bool is_out = value[4].cast<bool>();
    std::copy(sizes.begin(), sizes.end(), slot.sizes.begin());
    set_dense_metadata(slot, sizes.size());
    slot.impl.emplace(dtype, sizes.size(), slot.sizes.data(), reinterpret_cast<void*>(data),
                      slot.dim_order.data(), slot.strides.data(),
                      is_out ? TensorShapeDynamism::DynamicUnbound : TensorShapeDynamism::Static);
    if (is_out) slot.impl->set_resizer(resize_through_torch, &slot);
    return Tensor(&*slot.impl);
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
      auto source = value.cast<py::list>();
      auto& list = tensor_lists_.emplace_back();
      for (const auto& item : source) list.push_back(tensor(item.cast<py::tuple>()));
      return EValue(ArrayRef<Tensor>(list.data(), list.size()));
    }
    if (kind == "optional_tensor_list") {
      auto source = value.cast<py::list>();
      auto& list = optional_tensor_lists_.emplace_back();
      for (const auto& item : source) {
        list.push_back(item.is_none() ? std::nullopt
                                      : std::optional<Tensor>(tensor(item.cast<py::tuple>())));
      }
      return EValue(ArrayRef<std::optional<Tensor>>(list.data(), list.size()));
    }
    throw py::value_error("kiln internal: unknown argument kind '" + kind + "'");
  }

  // The first resize failure reported by torch, if any.
  std::string resize_error() const {
    for (const auto& slot : slots_) {
      if (!slot.resize_error.empty()) return slot.resize_error;
    }
    return {};
  }

 private:
  std::deque<TensorSlot> slots_;
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
    std::string searched;
    for (const auto& backend_name : backend_names) {
      searched += (searched.empty() ? "" : ", ") + backend_name;
    }
    return {to_string(Error::OperatorMissing),
            name + " has no registered kernel for backends [" + searched + "]", "", 0.0};
  }

  HeapTempAllocator temp;
  KernelRuntimeContext ctx(&temp);
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
    return {to_string(Error::Ok), "", to_string((*kernel)->backend),
            static_cast<double>(elapsed) / repeat};
  }
  std::string message = ctx.failure_message();
  const std::string resize_error = builder.resize_error();
  if (!resize_error.empty()) message += " (torch: " + resize_error + ")";
  return {to_string(error), message, to_string((*kernel)->backend), 0.0};
}

}  // namespace kiln::python
