// KernelRuntimeContext: the first failure wins and names the op; temp memory from an allocator.
#include <gtest/gtest.h>

#include "runtime/core/memory_allocator.h"
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

}  // namespace
