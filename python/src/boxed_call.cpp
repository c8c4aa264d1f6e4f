// Converts tagged Python arguments into EValues over the callers' memory and runs the kernel.
#include "boxed_call.h"

#include <array>
#include <cstdlib>
#include <deque>
#include <memory>
#include <optional>

#include "runtime/core/dim_order.h"
#include "runtime/executor/heap_memory.h"
#include "stack_builder.h"

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

// The strides of slot.sizes laid out in slot.dim_order.
void set_strides(TensorSlot& slot, size_t dim) {
  (void)dim_order_to_strides({slot.sizes.data(), dim}, {slot.dim_order.data(), dim},
                             {slot.strides.data(), dim});
}

Error resize_through_torch(TensorImpl& impl, ArrayRef<SizesType> sizes, void* user) {
  auto& slot = *static_cast<TensorSlot*>(user);
  const size_t dim = sizes.size();
  if (dim > kTensorDimensionLimit) return Error::NotSupported;
  // The dim order stays when the rank does (as TensorImpl::resize keeps it); else contiguous.
  std::array<DimOrderType, kTensorDimensionLimit> dim_order = slot.dim_order;
  if (dim != impl.dim()) fill_default_dim_order({dim_order.data(), dim});
  std::array<StridesType, kTensorDimensionLimit> strides{};
  (void)dim_order_to_strides(sizes, {dim_order.data(), dim}, {strides.data(), dim});
  py::gil_scoped_acquire gil;
  try {
    py::tuple shape(dim);
    py::tuple torch_strides(dim);
    for (size_t i = 0; i < dim; ++i) {
      shape[i] = sizes[i];
      torch_strides[i] = strides[i];
    }
    slot.torch_tensor.attr("resize_")(shape);
    if (!is_default_dim_order({dim_order.data(), dim})) {
      slot.torch_tensor.attr("as_strided_")(shape, torch_strides);
    }
    const auto data = slot.torch_tensor.attr("data_ptr")().cast<uintptr_t>();
    for (size_t i = 0; i < dim; ++i) slot.sizes[i] = sizes[i];
    slot.dim_order = dim_order;
    slot.strides = strides;
    impl.set_metadata_arrays(dim, slot.sizes.data(), slot.dim_order.data(), slot.strides.data());
    impl.set_storage(reinterpret_cast<void*>(data), impl.nbytes());
  } catch (py::error_already_set& e) {
    slot.resize_error = e.what();
    return Error::NotSupported;
  }
  return Error::Ok;
}

// Views torch tensors in place: their memory with Kiln metadata; outs resize through torch.
class TorchTensorViews {
 public:
  Tensor make(const py::tuple& value) {
    TensorSlot& slot = slots_.emplace_back();
    slot.torch_tensor = value[0];
    const auto data = value[1].cast<uintptr_t>();
    size_t dim = 0;
    for (const auto& size : value[2]) slot.sizes[dim++] = size.cast<int64_t>();
    const auto dtype = static_cast<ScalarType>(value[3].cast<int>());
    const bool is_out = value[4].cast<bool>();
    size_t ordered = 0;  // kiln/_convert.py gives the dim order of the tensor's strides
    for (const auto& d : value[5]) {
      if (ordered < kTensorDimensionLimit) slot.dim_order[ordered] = d.cast<DimOrderType>();
      ++ordered;
    }
    if (ordered != dim || !is_valid_dim_order({slot.dim_order.data(), dim})) {
      throw py::value_error("kiln internal: a tensor's dim order does not fit its shape");
    }
    set_strides(slot, dim);
    slot.impl.emplace(dtype, dim, slot.sizes.data(), reinterpret_cast<void*>(data),
                      slot.dim_order.data(), slot.strides.data(),
                      is_out ? TensorShapeDynamism::DynamicUnbound : TensorShapeDynamism::Static);
    if (is_out) slot.impl->set_resizer(resize_through_torch, &slot);
    return Tensor(&*slot.impl);
  }

  // The first resize failure reported by torch, if any.
  std::string failure_detail() const {
    for (const auto& slot : slots_) {
      if (!slot.resize_error.empty()) return " (torch: " + slot.resize_error + ")";
    }
    return {};
  }

  MemoryAllocator* temp_allocator() { return &temp_; }

 private:
  std::deque<TensorSlot> slots_;
  HeapAllocator temp_;  // kernels' temporaries, freed when the call ends
};

}  // namespace

CallOutcome call_boxed(const std::string& name, const std::vector<std::string>& backends,
                       const py::list& args, int repeat, bool allow_fallback, int new_results) {
  TorchTensorViews tensors;
  return run_boxed_call(name, backends, args, repeat, allow_fallback, new_results, tensors);
}

}  // namespace kiln::python
