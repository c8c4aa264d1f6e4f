#include "runtime/executor/heap_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "runtime/platform/last_error.h"

namespace kiln {

namespace {
constexpr size_t kBlockAlignment = 64;
}

void* HeapAllocator::allocate(size_t size, size_t alignment) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  // Kernels size their temporaries from a program's shapes: a request the rounding below would
  // wrap around, or an alignment aligned_alloc does not take, gets nothing.
  if (size > SIZE_MAX - alignment || (alignment & (alignment - 1)) != 0) return nullptr;
  if (next_ < blocks_.size()) {
    Block& block = blocks_[next_];
    if (block.size >= size && reinterpret_cast<uintptr_t>(block.memory) % alignment == 0) {
      ++next_;
      return block.memory;
    }
  }
  const size_t rounded = (size + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, rounded > 0 ? rounded : alignment);
  if (memory == nullptr) return nullptr;
  if (next_ < blocks_.size()) {
    std::free(blocks_[next_].memory);
    blocks_[next_] = {memory, rounded};
  } else {
    blocks_.push_back({memory, rounded});
  }
  ++next_;
  return memory;
}

HeapAllocator::~HeapAllocator() {
  for (const Block& block : blocks_) std::free(block.memory);
}

size_t HeapAllocator::held() const {
  size_t bytes = 0;
  for (const Block& block : blocks_) bytes += block.size;
  return bytes;
}

HeapFoldMemory::~HeapFoldMemory() {
  for (const auto& block : blocks_) std::free(block.first);
}

void* HeapFoldMemory::allocate(size_t size, size_t alignment) {
  if (size > limit_ - used_) return nullptr;
  return allocate_block(size, alignment, size);
}

void* HeapFoldMemory::allocate_scratch(size_t size, size_t alignment) {
  return allocate_block(size, alignment, 0);
}

void* HeapFoldMemory::allocate_block(size_t size, size_t alignment, size_t counted) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  if (size > SIZE_MAX - alignment || (alignment & (alignment - 1)) != 0) return nullptr;
  const size_t rounded = (size + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, rounded > 0 ? rounded : alignment);
  if (memory == nullptr) return nullptr;
  blocks_.emplace_back(memory, counted);
  used_ += counted;
  return memory;
}

void HeapFoldMemory::release(void* block) {
  // Load releases its most recent blocks first (scratch, then short-lived results).
  for (size_t i = blocks_.size(); i-- > 0;) {
    if (blocks_[i].first != block) continue;
    used_ -= blocks_[i].second;
    std::free(block);
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
    return;
  }
}

HeapMethodMemory::Block HeapMethodMemory::allocate_block(size_t size) {
  if (size > SIZE_MAX - kBlockAlignment) return Block(nullptr);
  const size_t rounded = (size + kBlockAlignment - 1) / kBlockAlignment * kBlockAlignment;
  return Block(static_cast<uint8_t*>(
      std::aligned_alloc(kBlockAlignment, rounded > 0 ? rounded : kBlockAlignment)));
}

HeapMethodMemory::HeapMethodMemory(const MethodMeta& meta, size_t max_bytes)
    : metadata_size_(meta.metadata_bytes()) {
  for (size_t i = 0; i < meta.num_memory_arenas(); ++i) {
    planned_bytes_ += std::min(meta.arena_size(i), SIZE_MAX - planned_bytes_);
  }
  if (!within_limit(meta, max_bytes)) {
    status_ = Error::MemoryAllocationFailed;
    return;
  }
  const size_t fixed = meta.metadata_bytes() + planned_bytes_;  // within max_bytes, checked
  folded_.set_limit(max_bytes - fixed);
  metadata_ = allocate_block(metadata_size_);
  if (metadata_ == nullptr) {
    KILN_SET_ERROR("the heap has no %zu bytes for the method's metadata", metadata_size_);
    status_ = Error::MemoryAllocationFailed;
  }
  for (size_t i = 0; i < meta.num_memory_arenas() && status_ == Error::Ok; ++i) {
    arenas_.push_back(allocate_block(meta.arena_size(i)));
    if (arenas_.back() == nullptr) {
      KILN_SET_ERROR("the heap has no %zu bytes for memory arena %zu", meta.arena_size(i), i);
      status_ = Error::MemoryAllocationFailed;
    }
    spans_.emplace_back(arenas_.back().get(), meta.arena_size(i));
  }
}

bool HeapMethodMemory::within_limit(const MethodMeta& meta, size_t max_bytes) {
  size_t total = meta.metadata_bytes();
  if (total > max_bytes) {
    KILN_SET_ERROR("the method's metadata needs %zu bytes, over the memory limit of %zu bytes",
                   total, max_bytes);
    return false;
  }
  for (size_t i = 0; i < meta.num_memory_arenas(); ++i) {
    const size_t size = meta.arena_size(i);
    if (size > max_bytes - total) {
      KILN_SET_ERROR(
          "memory arena %zu needs %zu bytes, over the memory limit of %zu bytes (%zu already "
          "planned); raise the limit (kiln.load's max_memory, kiln_runner's --max-memory) if the "
          "program is trusted",
          i, size, max_bytes, total);
      return false;
    }
    total += size;
  }
  return true;
}

}  // namespace kiln
