// The extension's intra-op thread count (kiln.set_num_threads): one process-wide pool that
// call_op's kernels and Program runs borrow.
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/kernel/thread_pool.h"

namespace kiln::python {

// The current pool, kept alive by the returned pointer for as long as a call uses it (another
// Python thread may set a new count meanwhile); empty at 1 thread, the default.
std::shared_ptr<ThreadPool> current_thread_pool();

// Makes the pool of `num_threads` threads (1 drops it). Raises ValueError below 1, and
// RuntimeError when the build has no pthreadpool or the threads cannot start.
void set_num_threads(int64_t num_threads);

int64_t get_num_threads();

// The most threads set_num_threads takes (kiln::PthreadPool::kMaxThreads), as kiln._C.MAX_THREADS.
int64_t max_threads();

}  // namespace kiln::python
