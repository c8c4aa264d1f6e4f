// ThreadPool: the interface kernels split their loops through; the application owns the pool.
//
// runtime/threads/pthread_pool.h makes one on pthreadpool; a KernelRuntimeContext only borrows
// it (set_thread_pool), so this layer stays free of threads and of any library. A pool runs one
// batch of tasks at a time: kernels never call run() from inside a task.
#pragma once

#include <cstddef>

namespace kiln {

class ThreadPool {
 public:
  // One task of a batch: task(context, index) for an index in [0, count).
  using Task = void (*)(void* context, size_t index);

  // Threads a batch runs on, the calling thread included (>= 1).
  virtual size_t num_threads() const = 0;

  // Calls task(context, i) once for every i in [0, count), spread over the pool's threads, and
  // returns when every call has returned. Tasks must not fail: a kernel records failures after
  // the batch, from what its tasks wrote.
  virtual void run(Task task, void* context, size_t count) = 0;

 protected:
  // Not deleted through this interface: whoever made the pool destroys it as its own type.
  ~ThreadPool() = default;
};

}  // namespace kiln
