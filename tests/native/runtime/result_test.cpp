// Result<T>: a value or an error, and Error::Ok misused as an error.
#include "runtime/core/result.h"

#include <gtest/gtest.h>

#include "tests/native/kiln_printers.h"

namespace {

TEST(ResultTest, HoldsAValue) {
  kiln::Result<int> ok(7);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 7);
}

TEST(ResultTest, HoldsAnError) {
  kiln::Result<int> bad(kiln::Error::NotFound);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), kiln::Error::NotFound);
}

TEST(ResultTest, OkAsAnErrorBecomesInternal) {
  kiln::Result<int> misuse(kiln::Error::Ok);
  EXPECT_EQ(misuse.error(), kiln::Error::Internal);
}

}  // namespace
