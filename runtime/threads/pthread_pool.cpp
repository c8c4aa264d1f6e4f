// PthreadPool on pthreadpool (KILN_HAVE_PTHREADPOOL), or single-threaded without it.
#include "runtime/threads/pthread_pool.h"

#include "runtime/platform/last_error.h"

#if KILN_HAVE_PTHREADPOOL
#include <pthreadpool.h>
#endif

// ThreadSanitizer builds (tests/tsan) state pthreadpool's ordering guarantees below.
#if defined(__SANITIZE_THREAD__)
#define KILN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KILN_TSAN 1
#endif
#endif
#if KILN_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace kiln {

namespace {

#if KILN_HAVE_PTHREADPOOL
// pthreadpool's 1-D task signature carries the task and its context through one struct.
struct Batch {
  ThreadPool::Task task;
  void* context;
};

// ThreadSanitizer does not see pthreadpool hand work to its threads and collect it: the library
// is not instrumented, and it does both through its own atomics and futexes. What it guarantees,
// everything before run() happens before each task and each task before run() returns, is told
// to ThreadSanitizer through the batch's two fields as sync addresses. The tasks of one batch get
// no order among themselves, so a race between two chunks of a kernel is still reported.
void batch_handed_out(Batch* batch) {
#if KILN_TSAN
  __tsan_release(&batch->task);
#else
  (void)batch;
#endif
}

void batch_collected(Batch* batch) {
#if KILN_TSAN
  __tsan_acquire(&batch->context);
#else
  (void)batch;
#endif
}

void run_one(void* batch, size_t index) {
  Batch* b = static_cast<Batch*>(batch);
#if KILN_TSAN
  __tsan_acquire(&b->task);
#endif
  b->task(b->context, index);
#if KILN_TSAN
  __tsan_release(&b->context);
#endif
}
#endif

}  // namespace

Result<PthreadPool> PthreadPool::create(size_t num_threads) {
  if (num_threads == 0) {
    KILN_SET_ERROR("a thread pool needs at least 1 thread, got %zu", num_threads);
    return Error::InvalidArgument;
  }
  if (num_threads > kMaxThreads) {
    KILN_SET_ERROR("a thread pool takes at most %zu threads, got %zu", kMaxThreads, num_threads);
    return Error::InvalidArgument;
  }
  if (num_threads == 1) return PthreadPool(nullptr, 1);
#if KILN_HAVE_PTHREADPOOL
  pthreadpool_t pool = pthreadpool_create(num_threads);
  if (pool == nullptr) {
    KILN_SET_ERROR("pthreadpool could not start %zu threads", num_threads);
    return Error::MemoryAllocationFailed;
  }
  return PthreadPool(pool, pthreadpool_get_threads_count(pool));
#else
  KILN_SET_ERROR(
      "this Kiln was built without pthreadpool (KILN_THREADS=OFF), so it runs on one thread only, "
      "not %zu; install libpthreadpool-dev and rebuild with KILN_THREADS=ON",
      num_threads);
  return Error::NotSupported;
#endif
}

bool PthreadPool::threads_supported() { return KILN_HAVE_PTHREADPOOL != 0; }

PthreadPool::PthreadPool(PthreadPool&& other) noexcept
    : pool_(other.pool_), num_threads_(other.num_threads_) {
  other.pool_ = nullptr;
  other.num_threads_ = 1;
}

PthreadPool& PthreadPool::operator=(PthreadPool&& other) noexcept {
  if (this != &other) {
    this->~PthreadPool();
    pool_ = other.pool_;
    num_threads_ = other.num_threads_;
    other.pool_ = nullptr;
    other.num_threads_ = 1;
  }
  return *this;
}

PthreadPool::~PthreadPool() {
#if KILN_HAVE_PTHREADPOOL
  if (pool_ != nullptr) pthreadpool_destroy(static_cast<pthreadpool_t>(pool_));
#endif
  pool_ = nullptr;
}

void PthreadPool::run(Task task, void* context, size_t count) {
#if KILN_HAVE_PTHREADPOOL
  if (pool_ != nullptr && count > 1) {
    Batch batch{task, context};
    batch_handed_out(&batch);
    pthreadpool_parallelize_1d(static_cast<pthreadpool_t>(pool_), run_one, &batch, count,
                               /*flags=*/0);
    batch_collected(&batch);
    return;
  }
#endif
  for (size_t i = 0; i < count; ++i) task(context, i);
}

}  // namespace kiln
