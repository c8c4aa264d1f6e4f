// The XNNPACK delegate's memory plan: the tensors its runs write share blocks by lifetime.
#include <algorithm>

#include "runtime/executor/delegates/xnnpack/xnnpack_builder.h"

namespace kiln::xnnpack {

namespace {

constexpr size_t kBlockAlignment = 64;
// Free blocks examined for a tensor, the most recently freed first: enough for real graphs,
// and a bound on the work of a crafted one.
constexpr size_t kFitCandidates = 64;

struct Block {
  void* data;
  size_t bytes;
};

}  // namespace

// The planned buffer `tensor` is on (its own, a view's base's), or kNoValue. `order` sorts
// tracked_ by tensor address.
uint32_t GraphBuilder::buffer_of(const TensorImpl* tensor, const uint32_t* order) const {
  const uint32_t* end = order + num_tracked_;
  const uint32_t* found =
      std::lower_bound(order, end, tensor,
                       [this](uint32_t i, const TensorImpl* t) { return tracked_[i].tensor < t; });
  return found == end || tracked_[*found].tensor != tensor ? kNoValue : tracked_[*found].buffer;
}

Error GraphBuilder::plan_memory() {
  auto* order = make<uint32_t>(num_tracked_);
  auto* by_last = make<uint32_t>(num_planned_);
  auto* blocks = make<Block>(num_planned_);
  auto* free = make<uint32_t>(num_planned_);  // indices of blocks free to take
  if (order == nullptr || by_last == nullptr || blocks == nullptr || free == nullptr) {
    return no_memory(num_tracked_ * sizeof(uint32_t));
  }
  for (uint32_t i = 0; i < num_tracked_; ++i) order[i] = i;
  std::sort(order, order + num_tracked_,
            [this](uint32_t a, uint32_t b) { return tracked_[a].tensor < tracked_[b].tensor; });
  // A view is on its base's buffer (bases come before their views).
  for (size_t i = 0; i < num_tracked_; ++i) {
    if (tracked_[i].base != nullptr) tracked_[i].buffer = buffer_of(tracked_[i].base, order);
  }
  // Each buffer lives until the last step that reads or writes a tensor on it.
  auto touch = [&](const TensorImpl* tensor, size_t s) {
    const uint32_t id = buffer_of(tensor, order);
    if (id != kNoValue) planned_[id].last = std::max(planned_[id].last, s);
  };
  for (size_t s = 0; s < num_steps_; ++s) {
    const RunStep& step = steps_[s];
    if (step.num_kernels == 0) {
      touch(step.view, s);
      touch(step.base, s);
    }
    for (const EValue* value : step.stack) {
      if (value->isTensor()) touch(value->toTensor().unsafeGetTensorImpl(), s);
      if (value->tag() != Tag::ListTensor) continue;
      for (const Tensor& item : value->toTensorList()) touch(item.unsafeGetTensorImpl(), s);
    }
  }
  // In the order they are first written: blocks of buffers whose last step came before are
  // free again; take the smallest that fits, or a new one.
  for (uint32_t i = 0; i < num_planned_; ++i) by_last[i] = i;
  std::sort(by_last, by_last + num_planned_,
            [this](uint32_t a, uint32_t b) { return planned_[a].last < planned_[b].last; });
  uint32_t* block_of = order;  // reused: order's lookups are done
  size_t num_blocks = 0, num_free = 0, released = 0;
  for (uint32_t b = 0; b < num_planned_; ++b) {
    PlannedBuffer& buffer = planned_[b];
    while (released < num_planned_ && planned_[by_last[released]].last < buffer.first) {
      free[num_free++] = block_of[by_last[released++]];
    }
    size_t best = num_free;
    for (size_t k = num_free; k > 0 && num_free - k < kFitCandidates; --k) {
      const Block& candidate = blocks[free[k - 1]];
      if (candidate.bytes >= buffer.bytes &&
          (best == num_free || candidate.bytes < blocks[free[best]].bytes)) {
        best = k - 1;
      }
    }
    if (best == num_free) {
      const size_t bytes = buffer.bytes == 0 ? 1 : buffer.bytes;
      void* data = context_.allocate(bytes, kBlockAlignment);
      if (data == nullptr) return no_memory(bytes);
      blocks[num_blocks] = {data, bytes};
      block_of[b] = static_cast<uint32_t>(num_blocks++);
    } else {
      block_of[b] = free[best];
      free[best] = free[--num_free];
    }
    buffer.owner->set_storage(blocks[block_of[b]].data, buffer.bytes);
  }
  return Error::Ok;
}

}  // namespace kiln::xnnpack
