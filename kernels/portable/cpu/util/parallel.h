// parallel_for: splits a kernel's loop over the thread pool its context borrows.
//
// The range is cut into at most one contiguous chunk per thread, each at least `grain` long, and
// fn(chunk_begin, chunk_end) runs once per chunk. Without a pool, with one thread, or when the
// range holds less than two grains, fn(begin, end) runs inline: small tensors never pay for the
// hand-off. Chunks write disjoint outputs, so a kernel whose per-element computation does not
// depend on where a chunk starts gives the same bits on any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Minimum work per chunk, measured on 2 cores (docs/threads.md): below these a second thread
// costs more in hand-off and cache traffic than it saves.
constexpr int64_t kElementwiseGrain = 32768;      // output elements of an elementwise loop
constexpr int64_t kRowGrain = 16384;              // input elements of softmax / norm rows
constexpr int64_t kGemmGrain = int64_t{1} << 17;  // multiply-adds of a gemm

namespace detail {

template <typename Fn>
struct ParallelChunks {
  const Fn* fn;
  int64_t begin;
  int64_t length;
  int64_t chunks;
  int64_t align;

  // Chunk i's first index: an even share, rounded down to a multiple of `align` from begin.
  int64_t boundary(int64_t i) const {
    if (i == chunks) return begin + length;
    const int64_t at = length * i / chunks;
    return begin + at - at % align;
  }
  static void run(void* self, size_t index) {
    const ParallelChunks& p = *static_cast<const ParallelChunks*>(self);
    const int64_t i = static_cast<int64_t>(index);
    const int64_t first = p.boundary(i);
    const int64_t last = p.boundary(i + 1);
    if (first < last) (*p.fn)(first, last);
  }
};

}  // namespace detail

// How many chunks parallel_for cuts [begin, end) into for this context: 1 means inline.
inline int64_t parallel_chunks(const KernelRuntimeContext& ctx, int64_t begin, int64_t end,
                               int64_t grain) {
  ThreadPool* pool = ctx.thread_pool();
  if (pool == nullptr || end - begin < 2 * grain) return 1;
  const int64_t threads = static_cast<int64_t>(pool->num_threads());
  const int64_t by_size = (end - begin) / (grain < 1 ? 1 : grain);
  return threads < by_size ? threads : by_size;
}

// Calls fn(chunk_begin, chunk_end) over contiguous chunks covering [begin, end), on the context's
// pool when the range is worth it (see above). fn must only write what its chunk owns.
// `align` > 1 starts every chunk but the first at a multiple of `align` from begin: vector loops
// then see the same blocks as on one thread.
template <typename Fn>
void parallel_for(const KernelRuntimeContext& ctx, int64_t begin, int64_t end, int64_t grain,
                  const Fn& fn, int64_t align = 1) {
  const int64_t chunks = parallel_chunks(ctx, begin, end, grain);
  if (chunks <= 1) {
    if (begin < end) fn(begin, end);
    return;
  }
  detail::ParallelChunks<Fn> batch{&fn, begin, end - begin, chunks, align < 1 ? 1 : align};
  ctx.thread_pool()->run(&detail::ParallelChunks<Fn>::run, &batch, static_cast<size_t>(chunks));
}

// The grain, in items, of a loop whose items (rows, channels) hold `item_elements` elements each.
inline int64_t items_grain(int64_t item_elements) {
  if (item_elements >= kRowGrain) return 1;
  const int64_t per_item = item_elements < 1 ? 1 : item_elements;
  return (kRowGrain + per_item - 1) / per_item;
}

// The alignment elementwise loops split at: a cache line of doubles, a multiple of any vector.
constexpr int64_t kParallelAlign = 64;

}  // namespace kiln::portable
