// MemoryAllocator: a bump allocator over caller-provided memory, for kernels' temporaries.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln {

class MemoryAllocator {
 public:
  // Does not take ownership of `base`, which must hold `size` bytes and outlive the allocator.
  MemoryAllocator(void* base, size_t size) : base_(static_cast<uint8_t*>(base)), size_(size) {}
  virtual ~MemoryAllocator() = default;

  // Returns aligned memory or nullptr when exhausted. `alignment` must be a power of two.
  virtual void* allocate(size_t size, size_t alignment = 16) {
    const uintptr_t start = reinterpret_cast<uintptr_t>(base_) + used_;
    const uintptr_t aligned = (start + alignment - 1) & ~(uintptr_t{alignment} - 1);
    const size_t new_used =
        static_cast<size_t>(aligned - reinterpret_cast<uintptr_t>(base_)) + size;
    if (new_used > size_) return nullptr;
    used_ = new_used;
    return reinterpret_cast<void*>(aligned);
  }

  // Frees everything at once.
  virtual void reset() { used_ = 0; }
  size_t used() const { return used_; }
  size_t size() const { return size_; }

 private:
  uint8_t* base_;
  size_t size_;
  size_t used_ = 0;
};

}  // namespace kiln
