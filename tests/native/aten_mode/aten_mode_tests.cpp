// Kiln's API on libtorch (ATen mode), as GoogleTest tests run by tests/test_aten_mode.py, which
// also reads the missing-operator log: EValue, registry, Functions.h, errors, kernel keys,
// resize and missing operators.
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <utility>

#include "Functions.h"
#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/kernel_key.h"
#include "runtime/kernel/operator_registry.h"
#include "tests/native/kiln_printers.h"

namespace {

// Registers library aten_ops (libtorch's kernels); registering it again is a no-op.
class AtenModeTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(register_aten_ops_kernels(), kiln::Error::Ok); }

  const kiln::Backend portable_[1] = {kiln::Backend::Portable};
};

TEST_F(AtenModeTest, EValueHoldsATensorReference) {
  at::Tensor t = at::ones({2});
  EXPECT_EQ(t.use_count(), 1u);
  {
    kiln::EValue value(t);
    EXPECT_EQ(t.use_count(), 2u);
    EXPECT_TRUE(value.isTensor());
    EXPECT_TRUE(value.toTensor().is_same(t));
    kiln::EValue copy = value;
    EXPECT_EQ(t.use_count(), 3u);
    kiln::EValue moved = std::move(copy);
    EXPECT_EQ(t.use_count(), 3u);
    EXPECT_TRUE(copy.isNone());  // NOLINT(bugprone-use-after-move): moved-from is None
    EXPECT_TRUE(moved.toTensor().is_same(t));
    value = kiln::EValue(int64_t{7});
    EXPECT_EQ(t.use_count(), 2u);
    EXPECT_EQ(value.toInt(), 7);
    moved = value;
    EXPECT_EQ(t.use_count(), 1u);
    EXPECT_EQ(moved.toInt(), 7);
    kiln::EValue scalar(kiln::Scalar(2.5));
    EXPECT_TRUE(scalar.isDouble());
    EXPECT_EQ(scalar.toScalar().toDouble(), 2.5);
  }
  EXPECT_EQ(t.use_count(), 1u);
}

TEST_F(AtenModeTest, RegistryHoldsLibtorchKernels) {
  auto kernel = kiln::find_kernel("aten::add.out", "", portable_);
  ASSERT_TRUE(kernel.ok());
  EXPECT_STREQ((*kernel)->origin, "libtorch");
  EXPECT_EQ(kiln::registered_kernel_count(), 5u);
}

class FunctionsHTest : public AtenModeTest {
 protected:
  float a_data_[6] = {1, 2, 3, 4, 5, 6};
  kiln::DenseTensor<2> a_{kiln::ScalarType::Float, {2, 3}, a_data_};
  kiln::KernelRuntimeContext ctx_;
};

TEST_F(FunctionsHTest, TypedAddCallsLibtorch) {
  float b_data[3] = {10, 20, 30};
  float out_data[6] = {};
  kiln::DenseTensor<1> b(kiln::ScalarType::Float, {3}, b_data);
  kiln::DenseTensor<2> out(kiln::ScalarType::Float, {2, 3}, out_data);
  kiln::Tensor out_tensor = out.tensor();
  kiln::aten::add_outf(ctx_, a_.tensor(), b.tensor(), 2, out_tensor);
  EXPECT_EQ(ctx_.failure_state(), kiln::Error::Ok) << ctx_.failure_message();
  EXPECT_EQ(out_data[0], 21);
  EXPECT_EQ(out_data[5], 66);
}

TEST_F(FunctionsHTest, TypedMaxWritesTwoOuts) {
  at::Tensor values = at::empty({0});
  at::Tensor indices = at::empty({0}, at::kLong);
  auto [max_values, max_indices] =
      kiln::aten::max_outf(ctx_, a_.tensor(), 1, false, values, indices);
  EXPECT_EQ(ctx_.failure_state(), kiln::Error::Ok) << ctx_.failure_message();
  EXPECT_TRUE(max_values.equal(at::tensor({3.0f, 6.0f}))) << max_values;
  EXPECT_TRUE(max_indices.equal(at::tensor({2, 2}, at::kLong))) << max_indices;
}

TEST_F(FunctionsHTest, TypedCatTakesATensorList) {
  const kiln::Tensor parts[] = {at::ones({2}), at::zeros({1})};
  at::Tensor joined = at::empty({0});
  kiln::aten::cat_outf(ctx_, kiln::ArrayRef<kiln::Tensor>(parts, 2), 0, joined);
  EXPECT_EQ(ctx_.failure_state(), kiln::Error::Ok) << ctx_.failure_message();
  EXPECT_TRUE(joined.equal(at::tensor({1.0f, 1.0f, 0.0f}))) << joined;
}

TEST_F(FunctionsHTest, TypedIndexTakesAnOptionalTensorList) {
  const std::optional<kiln::Tensor> where[] = {at::tensor({2, 0}, at::kLong)};
  at::Tensor picked = at::empty({0});
  kiln::aten::index_outf(ctx_, at::arange(3.0),
                         kiln::ArrayRef<std::optional<kiln::Tensor>>(where, 1), picked);
  EXPECT_EQ(ctx_.failure_state(), kiln::Error::Ok) << ctx_.failure_message();
  EXPECT_TRUE(picked.equal(at::tensor({2.0, 0.0}, at::kDouble))) << picked;
}

TEST_F(FunctionsHTest, TypedSumTakesAnOptionalIntList) {
  const int64_t dims[] = {0};
  at::Tensor summed = at::empty({0});
  kiln::aten::sum_outf(ctx_, a_.tensor(), kiln::IntArrayRef(dims, 1), false, std::nullopt, summed);
  EXPECT_EQ(ctx_.failure_state(), kiln::Error::Ok) << ctx_.failure_message();
  EXPECT_TRUE(summed.equal(at::tensor({5.0f, 7.0f, 9.0f}))) << summed;
}

TEST_F(AtenModeTest, LibtorchErrorsBecomeFailuresWithoutItsBacktrace) {
  kiln::EValue values[] = {kiln::EValue(at::ones({2})), kiln::EValue(at::ones({3})),
                           kiln::EValue(int64_t{1}), kiln::EValue(at::empty({0}))};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  auto kernel = kiln::find_kernel("aten::add.out", "", portable_);
  ASSERT_TRUE(kernel.ok());
  kiln::KernelRuntimeContext ctx;
  EXPECT_EQ((*kernel)->call(ctx, stack), kiln::Error::InvalidArgument);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "must match the size", ctx.failure_message());
  EXPECT_PRED_FORMAT2(testing::IsNotSubstring, "Exception raised from", ctx.failure_message());
}

TEST_F(AtenModeTest, AWrongArgumentTagIsAnUnboxingError) {
  auto kernel = kiln::find_kernel("aten::add.out", "", portable_);
  ASSERT_TRUE(kernel.ok());
  kiln::EValue bad[] = {kiln::EValue(at::ones({2})), kiln::EValue(int64_t{1}),
                        kiln::EValue(int64_t{1}), kiln::EValue(at::empty({0}))};
  kiln::EValue* bad_stack[] = {&bad[0], &bad[1], &bad[2], &bad[3]};
  kiln::KernelRuntimeContext bad_ctx;
  EXPECT_EQ((*kernel)->call(bad_ctx, bad_stack), kiln::Error::InvalidProgram);
}

TEST_F(AtenModeTest, KernelKeyReadsTheDimOrderFromStrides) {
  kiln::EValue values[] = {kiln::EValue(at::ones({2, 3}).t()), kiln::EValue(at::ones({3}))};
  kiln::EValue* stack[] = {&values[0], &values[1]};
  char key[64];
  ASSERT_EQ(kiln::build_kernel_key(stack, key, sizeof(key)), kiln::Error::Ok);
  EXPECT_STREQ(key, "v1/6;1,0|6;0");
}

TEST_F(AtenModeTest, ResizeStaysWithinCallerMemory) {
  float data[2] = {};
  kiln::DenseTensor<1> small(kiln::ScalarType::Float, {2}, data);
  kiln::Tensor tensor = small.tensor();
  kiln::KernelRuntimeContext ctx;
  const int64_t bigger[] = {4};
  EXPECT_FALSE(kiln::resize_or_fail(ctx, tensor, kiln::ArrayRef<int64_t>(bigger, 1)));
  EXPECT_EQ(ctx.failure_state(), kiln::Error::NotSupported);
}

TEST_F(AtenModeTest, MissingOperatorsAreReported) {
  const kiln::OperatorRequest requests[] = {{"aten::add.out", nullptr}, {"aten::mul.out", nullptr}};
  kiln::MissingOperator missing[2];
  ASSERT_EQ(kiln::find_missing_operators(requests, portable_, missing), 1u);
  EXPECT_EQ(missing[0].index, 1u);
  EXPECT_STREQ(missing[0].name, "aten::mul.out");
}

}  // namespace
