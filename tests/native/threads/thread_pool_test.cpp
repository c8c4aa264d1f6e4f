// kiln::PthreadPool and parallel_for: every task runs once, chunks tile the range, small or
// pool-less loops run inline, and more threads than the build supports is a clear error.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/portable/cpu/util/common/parallel.h"
#include "runtime/kernel/kernel_runtime_context.h"
#include "runtime/threads/pthread_pool.h"

namespace kiln {
namespace {

TEST(PthreadPoolTest, RunsEveryTaskOnce) {
  Result<PthreadPool> pool = PthreadPool::create(2);
  if (!PthreadPool::threads_supported()) return;  // MoreThreads... checks the refusal
  ASSERT_TRUE(pool.ok()) << kiln::last_error();
  EXPECT_EQ(pool->num_threads(), 2u);
  std::vector<std::atomic<int>> hits(1000);
  pool->run(
      [](void* context, size_t index) {
        (*static_cast<std::vector<std::atomic<int>>*>(context))[index].fetch_add(1);
      },
      &hits, hits.size());
  for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].load(), 1) << i;
}

TEST(PthreadPoolTest, UsesMoreThanTheCallingThread) {
  Result<PthreadPool> pool = PthreadPool::create(2);
  if (!PthreadPool::threads_supported()) return;
  ASSERT_TRUE(pool.ok());
  struct Seen {
    std::mutex mutex;
    std::set<std::thread::id> ids;
  } seen;
  // Enough slow tasks that the worker certainly takes some.
  pool->run(
      [](void* context, size_t) {
        auto& s = *static_cast<Seen*>(context);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        std::lock_guard<std::mutex> lock(s.mutex);
        s.ids.insert(std::this_thread::get_id());
      },
      &seen, 64);
  EXPECT_EQ(seen.ids.size(), 2u);
}

TEST(PthreadPoolTest, OneThreadRunsInlineAndZeroIsRefused) {
  Result<PthreadPool> one = PthreadPool::create(1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->num_threads(), 1u);
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran;
  one->run([](void* context,
              size_t) { *static_cast<std::thread::id*>(context) = std::this_thread::get_id(); },
           &ran, 1);
  EXPECT_EQ(ran, caller);

  Result<PthreadPool> zero = PthreadPool::create(0);
  EXPECT_EQ(zero.error(), Error::InvalidArgument);
  EXPECT_NE(std::strstr(kiln::last_error(), "at least 1 thread"), nullptr);
}

TEST(PthreadPoolTest, MoreThreadsWithoutPthreadpoolIsNotSupported) {
  Result<PthreadPool> pool = PthreadPool::create(4);
  if (PthreadPool::threads_supported()) {
    ASSERT_TRUE(pool.ok());
    EXPECT_EQ(pool->num_threads(), 4u);
    return;
  }
  EXPECT_EQ(pool.error(), Error::NotSupported);
  EXPECT_NE(std::strstr(kiln::last_error(), "KILN_THREADS"), nullptr);
}

TEST(PthreadPoolTest, MovesOwnership) {
  Result<PthreadPool> pool = PthreadPool::create(2);
  ASSERT_TRUE(pool.ok() || !PthreadPool::threads_supported());
  if (!pool.ok()) return;
  PthreadPool moved = std::move(pool.get());
  EXPECT_EQ(pool->num_threads(), 1u);  // the moved-from pool runs inline
  int sum = 0;
  moved.run(
      [](void* context, size_t index) {
        __atomic_add_fetch(static_cast<int*>(context), static_cast<int>(index), __ATOMIC_RELAXED);
      },
      &sum, 5);
  EXPECT_EQ(sum, 10);
}

// The chunks parallel_for hands out, sorted.
std::vector<std::pair<int64_t, int64_t>> chunks_of(const KernelRuntimeContext& ctx, int64_t begin,
                                                   int64_t end, int64_t grain, int64_t align = 1) {
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  portable::parallel_for(
      ctx, begin, end, grain,
      [&](int64_t first, int64_t last) {
        std::lock_guard<std::mutex> lock(mutex);
        chunks.emplace_back(first, last);
      },
      align);
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}

TEST(ParallelForTest, RunsInlineWithoutAPoolOrBelowTwoGrains) {
  KernelRuntimeContext ctx;
  using Chunks = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(chunks_of(ctx, 0, 1000000, 10), (Chunks{{0, 1000000}}));
  Result<PthreadPool> pool = PthreadPool::create(2);
  if (!pool.ok()) return;
  ctx.set_thread_pool(&pool.get());
  EXPECT_EQ(chunks_of(ctx, 0, 199, 100), (Chunks{{0, 199}}));
  EXPECT_EQ(chunks_of(ctx, 5, 5, 1), Chunks{});
}

TEST(ParallelForTest, ChunksTileTheRangeOnePerThreadOnAlignedBoundaries) {
  Result<PthreadPool> pool = PthreadPool::create(2);
  if (!PthreadPool::threads_supported()) return;
  KernelRuntimeContext ctx;
  ctx.set_thread_pool(&pool.get());
  using Chunks = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(chunks_of(ctx, 0, 200, 100), (Chunks{{0, 100}, {100, 200}}));
  EXPECT_EQ(chunks_of(ctx, 10, 1010, 1), (Chunks{{10, 510}, {510, 1010}}));
  // Aligned: the second chunk starts at a multiple of 64 from the range's start.
  EXPECT_EQ(chunks_of(ctx, 0, 1000, 1, 64), (Chunks{{0, 448}, {448, 1000}}));
}

}  // namespace
}  // namespace kiln
