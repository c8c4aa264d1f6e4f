// Converts tagged Python arguments into EValues over the callers' memory and runs the kernel.
#include "boxed_call.h"

#include <deque>
#include <string>

#include "kiln_error.h"
#include "runtime/core/dim_order.h"
#include "runtime/executor/heap_memory.h"
#include "stack_builder.h"
#include "torch_tensor_view.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

// Views torch tensors in place: their memory with Kiln metadata; outs resize through torch.
class TorchTensorViews {
 public:
  // `value` is (torch tensor, data_ptr, sizes, dtype code, is_out, dim order, row stride or
  // None), as kiln/_convert.py makes it.
  Tensor make(const py::tuple& value) {
    TensorSlot& slot = slots_.emplace_back();
    const auto data = value[1].cast<uintptr_t>();
    size_t dim = 0;
    for (const auto& size : value[2]) {
      if (dim == kTensorDimensionLimit)
        raise_kiln_error(Error::InvalidArgument,
                         "a tensor has more than 16 dims, which kiln tensors cannot have");
      slot.sizes[dim++] = size.cast<int64_t>();
    }
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
    if (!slot.compute_strides(dim)) {
      raise_kiln_error(Error::InvalidArgument,
                       "a tensor's sizes multiply past int64; no strides can hold them");
    }
    if (!value[6].is_none()) {
      if (dim == 0) throw py::value_error("kiln internal: a 0-dim tensor has no rows");
      slot.set_row_stride(value[6].cast<StridesType>());
    }
    Tensor view;
    if (slot.make_view(value[0], reinterpret_cast<void*>(data), dtype, dim, is_out, call_, &view) ==
        Overlap::Partial) {
      raise_kiln_error(Error::InvalidArgument, kPartialOverlapMessage);
    }
    return view;
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
  CallTensors call_;
  HeapAllocator temp_;  // kernels' temporaries, freed when the call ends
};

}  // namespace

CallOutcome call_boxed(const std::string& name, const std::vector<std::string>& backends,
                       const py::list& args, int repeat, bool allow_fallback, int new_results) {
  TorchTensorViews tensors;
  return run_boxed_call(name, backends, args, repeat, allow_fallback, new_results, tensors);
}

}  // namespace kiln::python
