#include "runtime/executor/heap_memory.h"

#include <cstdint>
#include <cstdlib>

namespace kiln {

namespace {
constexpr size_t kBlockAlignment = 64;
}

void* HeapAllocator::allocate(size_t size, size_t alignment) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  // Kernels size their temporaries from a program's shapes: a request the rounding below would
  // wrap around, or an alignment aligned_alloc does not take, gets nothing.
  if (size > SIZE_MAX - alignment || (alignment & (alignment - 1)) != 0) return nullptr;
  void* memory = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (memory != nullptr) blocks_.push_back(memory);
  return memory;
}

void HeapAllocator::reset() {
  for (void* block : blocks_) std::free(block);
  blocks_.clear();
}

HeapMethodMemory::Block HeapMethodMemory::allocate_block(size_t size) {
  if (size > SIZE_MAX - kBlockAlignment) return Block(nullptr);
  const size_t rounded = (size + kBlockAlignment - 1) / kBlockAlignment * kBlockAlignment;
  return Block(static_cast<uint8_t*>(
      std::aligned_alloc(kBlockAlignment, rounded > 0 ? rounded : kBlockAlignment)));
}

HeapMethodMemory::HeapMethodMemory(const MethodMeta& meta)
    : metadata_(allocate_block(meta.metadata_bytes())), metadata_size_(meta.metadata_bytes()) {
  if (metadata_ == nullptr) status_ = Error::MemoryAllocationFailed;
  for (size_t i = 0; i < meta.num_memory_arenas() && status_ == Error::Ok; ++i) {
    arenas_.push_back(allocate_block(meta.arena_size(i)));
    if (arenas_.back() == nullptr) status_ = Error::MemoryAllocationFailed;
    spans_.emplace_back(arenas_.back().get(), meta.arena_size(i));
  }
}

size_t HeapMethodMemory::planned_bytes() const {
  size_t total = 0;
  for (const auto& span : spans_) total += span.size();
  return total;
}

}  // namespace kiln
