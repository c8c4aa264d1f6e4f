// PthreadPool: the ThreadPool an application or runner makes for Kiln's kernels, on pthreadpool.
//
//   kiln::Result<kiln::PthreadPool> pool = kiln::PthreadPool::create(4);
//   if (pool.ok()) method.set_thread_pool(&pool.get());   // or ctx.set_thread_pool(...)
//
// Built without pthreadpool (KILN_THREADS=OFF), create() makes single-threaded pools only and
// refuses more threads with NotSupported.
#pragma once

#include <cstddef>

#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/kernel/thread_pool.h"
#include "runtime/platform/last_error.h"

namespace kiln {

class PthreadPool final : public ThreadPool {
 public:
  // The most threads a pool takes. Kernels split work into at most a few chunks per thread, so
  // threads beyond the machine's cores only add start-up and wake-up cost; the bound sits above
  // the core count of today's largest servers and stops a caller's typo (or an overflowed count)
  // from asking the system for millions of threads.
  static constexpr size_t kMaxThreads = 256;

  // A pool of `num_threads` threads in all, the caller's included: num_threads - 1 workers are
  // started here and wait for work. InvalidArgument for 0 or more than kMaxThreads; NotSupported
  // for more than one thread in a build without pthreadpool; MemoryAllocationFailed when the
  // threads cannot be started. kiln::last_error() says why.
  static Result<PthreadPool> create(size_t num_threads);

  // Whether this build can run more than one thread (it has pthreadpool).
  static bool threads_supported();

  PthreadPool(PthreadPool&& other) noexcept;
  PthreadPool& operator=(PthreadPool&& other) noexcept;
  PthreadPool(const PthreadPool&) = delete;
  PthreadPool& operator=(const PthreadPool&) = delete;
  // Stops and joins the workers.
  ~PthreadPool();

  size_t num_threads() const override { return num_threads_; }
  void run(Task task, void* context, size_t count) override;

 private:
  PthreadPool(void* pool, size_t num_threads) : pool_(pool), num_threads_(num_threads) {}

  void* pool_;  // pthreadpool_t; nullptr for a single-threaded pool
  size_t num_threads_;
};

}  // namespace kiln
