// check_arguments: the count, the tag of every argument, and messages naming the argument.
#include "runtime/kernel/unbox.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

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

TEST_F(UnboxTest, TakesAListOrNoneForAnOptionalDoubleList) {
  const kiln::ArgSpec specs[] = {{"scale_factors", kiln::ArgKind::OptionalDoubleList}};
  const double scales[] = {2.0, 0.5};
  kiln::EValue value{kiln::ArrayRef<double>(scales)};
  kiln::EValue* stack[] = {&value};
  kiln::KernelRuntimeContext ctx;
  ASSERT_EQ(kiln::check_arguments(ctx, "op", stack, specs), kiln::Error::Ok);
  const std::optional<kiln::ArrayRef<double>> unboxed = kiln::unbox::optional_double_list(value);
  ASSERT_TRUE(unboxed.has_value());
  EXPECT_EQ(unboxed->size(), 2u);
  EXPECT_EQ((*unboxed)[1], 0.5);
  value = kiln::EValue();
  ASSERT_EQ(kiln::check_arguments(ctx, "op", stack, specs), kiln::Error::Ok);
  EXPECT_FALSE(kiln::unbox::optional_double_list(value).has_value());
  value = kiln::EValue(2.0);
  EXPECT_EQ(kiln::check_arguments(ctx, "up.vec", stack, specs), kiln::Error::InvalidProgram);
  EXPECT_STREQ(ctx.failure_message(),
               "up.vec: argument 0 (scale_factors) expected ListDouble or None, got Double");
}

TEST_F(UnboxTest, CountsTheReturnSlotsAfterTheArguments) {
  kiln::EValue result;
  kiln::EValue* stack[] = {stack_[0], stack_[1], stack_[2], stack_[3], stack_[4], &result};
  kiln::KernelRuntimeContext ctx;
  EXPECT_EQ(kiln::check_arguments(ctx, "op", stack, specs_, 1), kiln::Error::Ok);
  EXPECT_EQ(kiln::check_arguments(ctx, "op", stack_, specs_, 1), kiln::Error::InvalidProgram);
  EXPECT_STREQ(ctx.failure_message(), "op: expected 5 arguments and 1 return slot, got 5 values");
  kiln::KernelRuntimeContext null_ctx;
  stack[5] = nullptr;
  EXPECT_EQ(kiln::check_arguments(null_ctx, "op", stack, specs_, 1), kiln::Error::InvalidProgram);
  EXPECT_STREQ(null_ctx.failure_message(), "op: return slot 0 is a null EValue pointer");
}

TEST_F(UnboxTest, RefusesAnUnknownScalarType) {
  kiln::KernelRuntimeContext ctx;
  values_[4] = kiln::EValue(int64_t{99});
  EXPECT_EQ(kiln::check_arguments(ctx, "op", stack_, specs_), kiln::Error::InvalidProgram);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "argument 4 (dtype)", ctx.failure_message());
}

}  // namespace
