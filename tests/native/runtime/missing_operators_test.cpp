// Missing operators: the structured report (index, cause, backends searched) and the
// ExecuTorch-style "Missing operator: [i] ..." log lines.
#include <gtest/gtest.h>

#include "runtime/kernel/operator_registry.h"
#include "tests/native/runtime/registry_fixture.h"

namespace registry_test {
namespace {

// The registry of RegistryTest: lib_a, with the log captured.
class MissingOperatorsTest : public RegistryTest {};

TEST_F(MissingOperatorsTest, ReportsMissingOperatorsAndLogsThem) {
  const kiln::OperatorRequest requests[] = {{"aten::add.out", nullptr},
                                            {"aten::squeeze_copy.dim_out", nullptr},
                                            {"aten::relu.out", ""},
                                            {"aten::mul.out", nullptr}};
  kiln::MissingOperator missing[4];
  ASSERT_EQ(kiln::find_missing_operators(requests, portable_, missing), 2u);
  EXPECT_EQ(missing[0].index, 1u);
  EXPECT_STREQ(missing[0].name, "aten::squeeze_copy.dim_out");
  EXPECT_EQ(missing[1].index, 3u);
  EXPECT_EQ(missing[1].backends_searched, kiln::backend_bit(kiln::Backend::Portable));
  EXPECT_TRUE(log_contains("Missing operator: [1] aten::squeeze_copy.dim_out"));
  EXPECT_TRUE(log_contains("Missing operator: [3] aten::mul.out"));
  EXPECT_TRUE(log_contains("2 of 4 operators are missing"));
  EXPECT_EQ(missing[0].cause, kiln::MissingCause::NotRegistered);
  EXPECT_EQ(missing[1].cause, kiln::MissingCause::NoKernelForBackend);
  EXPECT_TRUE(
      log_contains("Missing operator: [3] aten::mul.out (no kernel for the searched backends)"));
}

TEST_F(MissingOperatorsTest, ReportsAKernelKeyWithoutKernel) {
  // aten::div.out has only a Float-keyed kernel: another dtype has none, and the report says so.
  const kiln::OperatorRequest keyed[] = {{"aten::div.out", "v1/6;0|6;0|6;0"},
                                         {"aten::div.out", "v1/7;0|7;0|7;0"}};
  kiln::MissingOperator missing[2];
  ASSERT_EQ(kiln::find_missing_operators(keyed, portable_, missing), 1u);
  EXPECT_EQ(missing[0].index, 1u);
  EXPECT_EQ(missing[0].cause, kiln::MissingCause::NoKernelForKey);
  EXPECT_TRUE(log_contains("(kernel key v1/7;0|7;0|7;0: no kernel for this kernel key)"));
}

}  // namespace
}  // namespace registry_test
