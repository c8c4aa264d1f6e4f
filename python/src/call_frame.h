// CallFrame: the EValue stack of one BoundOperator call and the memory its values point into,
// kept between calls so that a call allocates nothing once the frame has grown to fit it.
#pragma once

#include <pybind11/pybind11.h>

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/executor/heap_memory.h"
#include "torch_tensor_view.h"

namespace kiln::python {

class CallFrame {
 public:
  // A frame for `arguments` schema arguments followed by `return_slots` return slots.
  CallFrame(size_t arguments, size_t return_slots)
      : values(arguments + return_slots), stack(values.size()), bound(arguments) {
    for (size_t i = 0; i < values.size(); ++i) stack[i] = &values[i];
  }
  CallFrame(const CallFrame&) = delete;
  CallFrame& operator=(const CallFrame&) = delete;

  // Readies the frame for a call: no argument bound, every value None.
  void begin() {
    for (auto& value : values) value = EValue();
    for (auto& value : bound) value = nullptr;
    tensors_used_ = 0;
    ints_.used = doubles_.used = tensor_lists_.used = optional_tensor_lists_.used = 0;
    bool_lists_.clear();
    bytes = 0;
  }

  // Ends a call: drops its torch tensors and the kernels' temporaries.
  void end() {
    for (size_t i = 0; i < tensors_used_; ++i) tensors_[i].torch_tensor = pybind11::object();
    tensors_used_ = 0;
    temp.reset();
  }

  // A tensor slot for this call (stable address until end()).
  TensorSlot& tensor_slot() {
    if (tensors_used_ == tensors_.size()) tensors_.emplace_back();
    return tensors_[tensors_used_++];
  }

  // An empty list for this call (stable until the next begin()).
  std::vector<int64_t>& int_list() { return next(ints_); }
  std::vector<double>& double_list() { return next(doubles_); }
  std::vector<Tensor>& tensor_list() { return next(tensor_lists_); }
  std::vector<std::optional<Tensor>>& optional_tensor_list() {
    return next(optional_tensor_lists_);
  }
  bool* bool_list(size_t size) {
    return bool_lists_.emplace_back(std::make_unique<bool[]>(size)).get();
  }

  // The first resize failure torch reported for an out, as " (torch: ...)", or "".
  std::string failure_detail() const {
    for (size_t i = 0; i < tensors_used_; ++i) {
      if (!tensors_[i].resize_error.empty()) return " (torch: " + tensors_[i].resize_error + ")";
    }
    return {};
  }

  std::vector<EValue> values;    // the schema's arguments, then the return slots
  std::vector<EValue*> stack;    // points at values
  std::vector<PyObject*> bound;  // the Python value of each argument (borrowed), or null
  HeapAllocator temp;            // kernels' temporaries
  size_t bytes = 0;              // data the call's tensors hold

 private:
  template <typename T>
  struct Pool {
    std::deque<std::vector<T>> lists;
    size_t used = 0;
  };
  template <typename T>
  static std::vector<T>& next(Pool<T>& pool) {
    if (pool.used == pool.lists.size()) pool.lists.emplace_back();
    std::vector<T>& list = pool.lists[pool.used++];
    list.clear();
    return list;
  }

  std::deque<TensorSlot> tensors_;
  size_t tensors_used_ = 0;
  Pool<int64_t> ints_;
  Pool<double> doubles_;
  Pool<Tensor> tensor_lists_;
  Pool<std::optional<Tensor>> optional_tensor_lists_;
  std::deque<std::unique_ptr<bool[]>> bool_lists_;  // rare (one schema has a bool[]): not reused
};

}  // namespace kiln::python
