// kiln.set_num_threads / get_num_threads on a kiln::PthreadPool.
#include "thread_settings.h"

#include <pthread.h>
#include <pybind11/pybind11.h>

#include <mutex>
#include <new>
#include <string>

#include "kiln_error.h"
#include "runtime/platform/last_error.h"
#include "runtime/threads/pthread_pool.h"

namespace kiln::python {
namespace {

std::mutex pool_mutex;
std::shared_ptr<ThreadPool> pool;  // guarded by pool_mutex
int64_t pool_threads = 1;

// A forked child (multiprocessing, DataLoader workers) has the pool but not its worker threads:
// waiting for them would hang. It starts over at 1 thread; the old pool is left alone (a leak,
// as joining threads that do not exist cannot be done), and the mutex another thread may have
// held at the fork is made anew.
void start_over_in_child() {
  new (&pool_mutex) std::mutex();
  new std::shared_ptr<ThreadPool>(std::move(pool));  // never freed: see above
  pool_threads = 1;
}

}  // namespace

std::shared_ptr<ThreadPool> current_thread_pool() {
  std::lock_guard<std::mutex> lock(pool_mutex);
  return pool;
}

int64_t max_threads() { return static_cast<int64_t>(PthreadPool::kMaxThreads); }

void set_num_threads(int64_t num_threads) {
  namespace py = pybind11;
  if (num_threads < 1) {
    throw py::value_error("kiln.set_num_threads: the number of threads must be at least 1, got " +
                          std::to_string(num_threads));
  }
  if (static_cast<uint64_t>(num_threads) > PthreadPool::kMaxThreads) {
    throw py::value_error("kiln.set_num_threads: the number of threads must be at most " +
                          std::to_string(PthreadPool::kMaxThreads) + ", got " +
                          std::to_string(num_threads));
  }
  static std::once_flag fork_handler;
  std::call_once(fork_handler, [] { pthread_atfork(nullptr, nullptr, start_over_in_child); });
  std::shared_ptr<ThreadPool> made;
  if (num_threads > 1) {
    Result<PthreadPool> created = PthreadPool::create(static_cast<size_t>(num_threads));
    if (!created.ok()) {
      raise_kiln_error(created.error(), std::string("kiln.set_num_threads: ") + last_error());
    }
    made = std::make_shared<PthreadPool>(std::move(created.get()));
  }
  std::lock_guard<std::mutex> lock(pool_mutex);
  pool = std::move(made);
  pool_threads = num_threads;
}

int64_t get_num_threads() {
  std::lock_guard<std::mutex> lock(pool_mutex);
  return pool_threads;
}

}  // namespace kiln::python
