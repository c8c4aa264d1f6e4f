// HeapMethodMemory: the default owner of a Method's memory, from the heap, for runners and
// bindings. Program and Method never allocate; whoever wants another policy (static buffers,
// a device pool) builds a MethodMemory from their own memory instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/core/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

namespace kiln {

// Heap memory for kernels' temporaries: each allocation is a block of its own. reset() keeps the
// blocks, and the allocations after it reuse them in order (a program's kernels ask for the same
// sizes run after run), so that steady runs allocate nothing; a block too small for its turn is
// replaced. Freed with the object.
class HeapAllocator : public MemoryAllocator {
 public:
  HeapAllocator() : MemoryAllocator(nullptr, 0) {}
  ~HeapAllocator() override;
  HeapAllocator(const HeapAllocator&) = delete;
  HeapAllocator& operator=(const HeapAllocator&) = delete;
  void* allocate(size_t size, size_t alignment) override;
  void reset() override { next_ = 0; }
  // Bytes the blocks hold (handed out or kept for reuse).
  size_t held() const;

 private:
  struct Block {
    void* memory;
    size_t size;
  };
  std::vector<Block> blocks_;
  size_t next_ = 0;  // the first block not handed out since reset()
};

// Heap memory for constant folding's results (FoldMemory), bounded: allocate() returns nullptr
// once the blocks held would pass the limit. Freed with the object.
class HeapFoldMemory : public FoldMemory {
 public:
  explicit HeapFoldMemory(size_t limit) : limit_(limit) {}
  ~HeapFoldMemory();
  HeapFoldMemory(const HeapFoldMemory&) = delete;
  HeapFoldMemory& operator=(const HeapFoldMemory&) = delete;
  void* allocate(size_t size, size_t alignment) override;
  // Outside the limit: the analysis's scratch follows the program's size, not its plan.
  void* allocate_scratch(size_t size, size_t alignment) override;
  void release(void* block) override;
  size_t limit() const { return limit_; }
  void set_limit(size_t limit) { limit_ = limit; }
  size_t used() const { return used_; }

 private:
  void* allocate_block(size_t size, size_t alignment, size_t counted);

  size_t limit_;
  size_t used_ = 0;                               // bytes of allocate()'s blocks held
  std::vector<std::pair<void*, size_t>> blocks_;  // each block and what it counts in used_
};

class HeapMethodMemory {
 public:
  static constexpr size_t kUnbounded = SIZE_MAX;

  // Sized from `meta`: metadata_bytes() and every arena_size(), 64-byte aligned. The sizes come
  // from the program file, so the caller bounds them: when the metadata and the arenas together
  // would exceed `max_bytes`, nothing is allocated and status() is MemoryAllocationFailed, with
  // kiln::last_error() naming the arena, its size and the limit. What is left of `max_bytes`
  // bounds the results of constant folding (MethodMemory::folded): Method::load leaves the calls
  // that do not fit to run at each execute() (FoldReport::over_limit).
  explicit HeapMethodMemory(const MethodMeta& meta, size_t max_bytes = kUnbounded);
  HeapMethodMemory(const HeapMethodMemory&) = delete;
  HeapMethodMemory& operator=(const HeapMethodMemory&) = delete;

  // MemoryAllocationFailed when the plan exceeds the limit or the heap could not provide it all.
  Error status() const { return status_; }
  // Valid while this object lives; it must outlive the Method loaded with it.
  MethodMemory memory() {
    return {{metadata_.get(), metadata_size_}, {spans_.data(), spans_.size()}, &temp_, &folded_};
  }
  // The arenas' sizes together, as planned (saturating), whether or not they were allocated.
  size_t planned_bytes() const { return planned_bytes_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  using Block = std::unique_ptr<uint8_t, Free>;
  static Block allocate_block(size_t size);
  // Whether the metadata and every arena fit in `max_bytes` together; sets last_error if not.
  static bool within_limit(const MethodMeta& meta, size_t max_bytes);

  Block metadata_;
  size_t metadata_size_;
  std::vector<Block> arenas_;
  std::vector<Span<uint8_t>> spans_;
  HeapAllocator temp_;
  HeapFoldMemory folded_{0};
  size_t planned_bytes_ = 0;
  Error status_ = Error::Ok;
};

}  // namespace kiln
