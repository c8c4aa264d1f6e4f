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

// One chunk of a parallel_for: fn(state, chunk_begin, chunk_end).
using ChunkFn = void (*)(const void* state, int64_t begin, int64_t end);

// parallel_for's body behind a plain function pointer. Only its address is taken, so the loop
// it runs (an elementwise row loop, say) is compiled once here, not once more inline in each
// parallel_for for the single-chunk path, a second copy of every loop that runs in parallel.
template <typename Fn>
void call_chunk(const void* fn, int64_t begin, int64_t end) {
  (*static_cast<const Fn*>(fn))(begin, end);
}

// parallel_for without the template: cuts [begin, end) as parallel_for describes and calls fn.
void run_chunks(const KernelRuntimeContext& ctx, int64_t begin, int64_t end, int64_t grain,
                int64_t align, ChunkFn fn, const void* state);

}  // namespace detail

// Calls fn(chunk_begin, chunk_end) over contiguous chunks covering [begin, end), on the context's
// pool when the range is worth it (see above). fn must only write what its chunk owns.
// `align` > 1 starts every chunk but the first at a multiple of `align` from begin: vector loops
// then see the same blocks as on one thread.
template <typename Fn>
void parallel_for(const KernelRuntimeContext& ctx, int64_t begin, int64_t end, int64_t grain,
                  const Fn& fn, int64_t align = 1) {
  detail::run_chunks(ctx, begin, end, grain, align, &detail::call_chunk<Fn>, &fn);
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
