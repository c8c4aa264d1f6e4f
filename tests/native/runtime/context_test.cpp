// KernelRuntimeContext: the first failure wins and names the op; temp memory from an allocator,
// and HeapAllocator reusing its blocks from one kernel call to the next.
#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/core/memory_allocator.h"
#include "runtime/executor/heap_memory.h"
#include "runtime/kernel/kernel_runtime_context.h"
#include "tests/native/kiln_printers.h"

namespace {

TEST(KernelRuntimeContextTest, KeepsTheFirstFailureWithTheOpName) {
  kiln::KernelRuntimeContext ctx;
  ctx.set_op_name("aten::foo.out");
  ctx.fail(kiln::Error::InvalidArgument, "first %d", 1);
  ctx.fail(kiln::Error::NotSupported, "second");
  EXPECT_EQ(ctx.failure_state(), kiln::Error::InvalidArgument);
  EXPECT_STREQ(ctx.failure_message(), "aten::foo.out: first 1");
  ctx.reset_failure();
  EXPECT_EQ(ctx.failure_state(), kiln::Error::Ok);
}

TEST(KernelRuntimeContextTest, AllocatesTempMemoryOnlyFromItsAllocator) {
  kiln::KernelRuntimeContext ctx;
  EXPECT_FALSE(ctx.allocate_temp(16).ok());
  alignas(16) unsigned char buffer[64];
  kiln::MemoryAllocator allocator(buffer, sizeof(buffer));
  kiln::KernelRuntimeContext with_temp(&allocator);
  EXPECT_TRUE(with_temp.allocate_temp(48).ok());
  EXPECT_FALSE(with_temp.allocate_temp(48).ok());
}

TEST(KernelRuntimeContextTest, TryAllocateTempReturnsNullWithoutFailing) {
  kiln::KernelRuntimeContext ctx;
  EXPECT_EQ(ctx.try_allocate_temp(16), nullptr);
  alignas(16) unsigned char buffer[64];
  kiln::MemoryAllocator allocator(buffer, sizeof(buffer));
  kiln::KernelRuntimeContext with_temp(&allocator);
  EXPECT_NE(with_temp.try_allocate_temp(48), nullptr);
  EXPECT_EQ(with_temp.try_allocate_temp(48), nullptr);
  EXPECT_EQ(with_temp.failure_state(), kiln::Error::Ok);
  with_temp.reset_temp();
  EXPECT_NE(with_temp.try_allocate_temp(48), nullptr);
}

TEST(HeapAllocatorTest, ReusesItsBlocksInOrderAfterReset) {
  kiln::HeapAllocator allocator;
  void* small = allocator.allocate(100, 16);
  void* large = allocator.allocate(5000, 64);
  ASSERT_NE(small, nullptr);
  ASSERT_NE(large, nullptr);
  const size_t held = allocator.held();
  allocator.reset();
  EXPECT_EQ(allocator.allocate(100, 16), small);
  EXPECT_EQ(allocator.allocate(4000, 64), large);
  EXPECT_EQ(allocator.held(), held);
  // A block too small for its turn is replaced; one misaligned for the request too.
  allocator.reset();
  void* larger = allocator.allocate(10000, 16);
  ASSERT_NE(larger, nullptr);
  EXPECT_GE(allocator.held(), 10000u);
  void* aligned = allocator.allocate(16, 4096);
  ASSERT_NE(aligned, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % 4096, 0u);
  // Past the kept blocks, new ones.
  EXPECT_NE(allocator.allocate(8, 16), nullptr);
}

}  // namespace
