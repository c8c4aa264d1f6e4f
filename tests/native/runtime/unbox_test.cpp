// check_arguments: the count, the tag of every argument, and messages naming the argument.
#include "runtime/kernel/unbox.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/core/dense_tensor.h"
#include "tests/native/kiln_printers.h"

namespace {

// A stack matching `specs_`; each test breaks one thing.
class UnboxTest : public testing::Test {
 protected:
  float data_[1] = {};
  kiln::DenseTensor<1> t_{kiln::ScalarType::Float, {1}, data_};
  const kiln::ArgSpec specs_[5] = {{"self", kiln::ArgKind::Tensor},
                                   {"alpha", kiln::ArgKind::Scalar},
                                   {"dim", kiln::ArgKind::OptionalIntList},
                                   {"scale", kiln::ArgKind::Double},
                                   {"dtype", kiln::ArgKind::OptionalScalarType}};
  kiln::EValue values_[5] = {kiln::EValue(t_.tensor()), kiln::EValue(true), kiln::EValue(),
                             kiln::EValue(int64_t{2}), kiln::EValue(int64_t{6})};
  kiln::EValue* stack_[5] = {&values_[0], &values_[1], &values_[2], &values_[3], &values_[4]};
};

TEST_F(UnboxTest, AcceptsMatchingArguments) {
  kiln::KernelRuntimeContext ctx;
  EXPECT_EQ(kiln::check_arguments(ctx, "op", stack_, specs_), kiln::Error::Ok);
}

TEST_F(UnboxTest, RefusesAWrongArgumentCount) {
  kiln::KernelRuntimeContext ctx;
  EXPECT_EQ(kiln::check_arguments(ctx, "op", {stack_, 4}, specs_), kiln::Error::InvalidProgram);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "expected 5 arguments", ctx.failure_message());
}

TEST_F(UnboxTest, NamesTheArgumentWithTheWrongTag) {
  kiln::KernelRuntimeContext ctx;
  values_[0] = kiln::EValue(int64_t{3});
  EXPECT_EQ(kiln::check_arguments(ctx, "aten::x.out", stack_, specs_), kiln::Error::InvalidProgram);
  EXPECT_STREQ(ctx.failure_message(), "aten::x.out: argument 0 (self) expected Tensor, got Int");
}

TEST_F(UnboxTest, RefusesAnUnknownScalarType) {
  kiln::KernelRuntimeContext ctx;
  values_[4] = kiln::EValue(int64_t{99});
  EXPECT_EQ(kiln::check_arguments(ctx, "op", stack_, specs_), kiln::Error::InvalidProgram);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "argument 4 (dtype)", ctx.failure_message());
}

}  // namespace
