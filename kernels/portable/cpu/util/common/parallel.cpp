#include "kernels/portable/cpu/util/common/parallel.h"

namespace kiln::portable::detail {
namespace {

// How many chunks [begin, end) is cut into for this context: 1 means inline.
int64_t chunk_count(const KernelRuntimeContext& ctx, int64_t begin, int64_t end, int64_t grain) {
  ThreadPool* pool = ctx.thread_pool();
  if (pool == nullptr || end - begin < 2 * grain) return 1;
  const int64_t threads = static_cast<int64_t>(pool->num_threads());
  const int64_t by_size = (end - begin) / (grain < 1 ? 1 : grain);
  return threads < by_size ? threads : by_size;
}

struct Chunks {
  ChunkFn fn;
  const void* state;
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
};

void run_chunk(void* context, size_t index) {
  const Chunks& c = *static_cast<const Chunks*>(context);
  const int64_t i = static_cast<int64_t>(index);
  const int64_t first = c.boundary(i);
  const int64_t last = c.boundary(i + 1);
  if (first < last) c.fn(c.state, first, last);
}

}  // namespace

void run_chunks(const KernelRuntimeContext& ctx, int64_t begin, int64_t end, int64_t grain,
                int64_t align, ChunkFn fn, const void* state) {
  const int64_t chunks = chunk_count(ctx, begin, end, grain);
  if (chunks <= 1) {
    if (begin < end) fn(state, begin, end);
    return;
  }
  Chunks batch{fn, state, begin, end - begin, chunks, align < 1 ? 1 : align};
  ctx.thread_pool()->run(&run_chunk, &batch, static_cast<size_t>(chunks));
}

}  // namespace kiln::portable::detail
