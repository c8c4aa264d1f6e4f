// call_operator: a kernel that declines its inputs hands the call to another backend (counted,
// with the reason), or fails with NotSupported when fallback is off or no backend is left.
#include <gtest/gtest.h>

#include "runtime/kernel/operator_registry.h"
#include "tests/native/runtime/registry_fixture.h"

namespace registry_test {
namespace {

using kiln::Backend;

// exp: a declining Ascend kernel and a portable one; abs: only a declining Ascend kernel;
// neg: only a portable kernel.
class CallOperatorTest : public testing::Test {
 protected:
  void SetUp() override {
    static const TestTable lib(
        "lib_fallback",
        {{"aten::exp.out", h("aten::exp.out"), "", Backend::Ascend, boxed_declines, "f.yaml:1"},
         {"aten::exp.out", h("aten::exp.out"), "", Backend::Portable, boxed_ok, "f.yaml:2"},
         {"aten::abs.out", h("aten::abs.out"), "", Backend::Ascend, boxed_declines, "f.yaml:3"},
         {"aten::neg.out", h("aten::neg.out"), "", Backend::Portable, boxed_ok, "f.yaml:4"}});
    kiln::reset_registry_for_testing();
    ASSERT_EQ(kiln::register_kernels(lib.table), kiln::Error::Ok);
    kiln::reset_fallback_stats();
  }

  void TearDown() override { kiln::reset_registry_for_testing(); }

  const Backend ascend_first_[2] = {Backend::Ascend, Backend::Portable};
  kiln::Span<kiln::EValue*> no_args_;
};

TEST_F(CallOperatorTest, ADeclinedCallRunsOnThePortableKernel) {
  kiln::KernelRuntimeContext ctx;
  const kiln::Kernel* served = nullptr;
  EXPECT_EQ(kiln::call_operator(ctx, "aten::exp.out", no_args_, ascend_first_, true, &served),
            kiln::Error::Ok);
  ASSERT_NE(served, nullptr);
  EXPECT_EQ(served->backend, Backend::Portable);
  EXPECT_EQ(ctx.failure_state(), kiln::Error::Ok);  // the decline is not the caller's failure
  kiln::FallbackRecord records[4];
  ASSERT_EQ(kiln::fallback_records(records), 1u);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "takes no Double", records[0].reason);
  EXPECT_EQ(records[0].requested, Backend::Ascend);
  EXPECT_EQ(records[0].served_by, Backend::Portable);
}

TEST_F(CallOperatorTest, WithoutFallbackADeclineIsNotSupportedWithTheKernelsReason) {
  kiln::KernelRuntimeContext strict;
  EXPECT_EQ(kiln::call_operator(strict, "aten::exp.out", no_args_, ascend_first_, false),
            kiln::Error::NotSupported);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "fallback to another backend is disabled",
                      strict.failure_message());
  kiln::KernelRuntimeContext missing;
  EXPECT_EQ(kiln::call_operator(missing, "aten::neg.out", no_args_, ascend_first_, false),
            kiln::Error::OperatorMissing);
  EXPECT_EQ(kiln::fallback_count(), 0u);  // a refused call is no fallback
}

TEST_F(CallOperatorTest, ADeclineWithNoOtherBackendIsNotSupported) {
  kiln::KernelRuntimeContext nowhere;
  EXPECT_EQ(kiln::call_operator(nowhere, "aten::abs.out", no_args_, ascend_first_),
            kiln::Error::NotSupported);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "no other backend has a kernel",
                      nowhere.failure_message());
  EXPECT_EQ(kiln::fallback_count(), 0u);
}

TEST_F(CallOperatorTest, ABackendWithoutAKernelIsACountedFallback) {
  kiln::KernelRuntimeContext declined;
  EXPECT_EQ(kiln::call_operator(declined, "aten::exp.out", no_args_, ascend_first_),
            kiln::Error::Ok);
  kiln::KernelRuntimeContext plain;
  EXPECT_EQ(kiln::call_operator(plain, "aten::neg.out", no_args_, ascend_first_), kiln::Error::Ok);
  EXPECT_EQ(kiln::fallback_count(), 2u);
}

}  // namespace
}  // namespace registry_test
