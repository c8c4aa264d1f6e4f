// ATen mode's call_boxed: the same Python argument protocol as boxed_call.cpp, but a torch tensor
// enters the stack as the at::Tensor it is (sharing its TensorImpl, so libtorch's kernels resize
// out tensors in place) instead of a Kiln view of its memory.
#include "stack_builder.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

// Passes torch tensors through as the at::Tensor they are. Tensor._cdata is the address of the
// tensor's c10::TensorImpl; taking a new reference to it gives an at::Tensor that is the Python
// tensor, without libtorch_python.
class TorchTensorsAsIs {
 public:
  Tensor make(const py::tuple& value) {
    const auto address = value[0].attr("_cdata").cast<uintptr_t>();
    auto impl = c10::intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>::reclaim_copy(
        reinterpret_cast<c10::TensorImpl*>(address));
    return Tensor(std::move(impl));
  }
  std::string failure_detail() const { return {}; }
  MemoryAllocator* temp_allocator() { return nullptr; }  // libtorch allocates its own
};

}  // namespace

CallOutcome call_boxed(const std::string& name, const std::vector<std::string>& backends,
                       const py::list& args, int repeat, bool allow_fallback, int new_results) {
  TorchTensorsAsIs tensors;
  return run_boxed_call(name, backends, args, repeat, allow_fallback, new_results, tensors);
}

}  // namespace kiln::python
