// Resize rules by shape dynamism, and resize_or_fail's message naming both shapes.
#include <gtest/gtest.h>

#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"
#include "tests/native/kiln_printers.h"

namespace {

const kiln::SizesType kSame[] = {2, 3};
const kiln::SizesType kOther[] = {3, 2};
const kiln::SizesType kBigger[] = {4, 3};
const kiln::SizesType kRank1[] = {6};
const kiln::SizesType kNegative[] = {-1, 3};

TEST(ResizeTest, StaticShapeTakesOnlyItsOwnShape) {
  float data[6] = {};
  kiln::DenseTensor<2> fixed(kiln::ScalarType::Float, {2, 3}, data);
  EXPECT_EQ(fixed.impl().resize(kSame), kiln::Error::Ok);
  EXPECT_EQ(fixed.impl().resize(kOther), kiln::Error::NotSupported);
}

TEST(ResizeTest, DynamicBoundTakesShapesWithinItsCapacity) {
  float data[6] = {};
  kiln::DenseTensor<2> bound(kiln::ScalarType::Float, {2, 3}, data,
                             kiln::TensorShapeDynamism::DynamicBound);
  EXPECT_EQ(bound.impl().resize(kOther), kiln::Error::Ok);
  EXPECT_EQ(bound.impl().sizes()[0], 3);
  EXPECT_EQ(bound.impl().strides()[0], 2);
  EXPECT_EQ(bound.impl().resize(kBigger), kiln::Error::NotSupported);
  EXPECT_EQ(bound.impl().resize(kRank1), kiln::Error::NotSupported);
  EXPECT_EQ(bound.impl().resize(kNegative), kiln::Error::InvalidArgument);
}

TEST(ResizeTest, RefusesShapesWhoseSizeProductOverflows) {
  float data[6] = {};
  kiln::DenseTensor<2> bound(kiln::ScalarType::Float, {2, 3}, data,
                             kiln::TensorShapeDynamism::DynamicBound);
  // Kernels compute sizes from a program's arguments: neither the element count nor the strides
  // (where a 0 counts as 1) may overflow while checking them against the capacity.
  const kiln::SizesType huge[2] = {INT64_MAX / 2, 4};
  const kiln::SizesType empty_but_huge_strides[2] = {0, INT64_MAX};
  EXPECT_EQ(bound.impl().resize(huge), kiln::Error::NotSupported);
  EXPECT_EQ(bound.impl().resize(empty_but_huge_strides), kiln::Error::NotSupported);
  EXPECT_EQ(bound.impl().sizes()[0], 2);
}

TEST(ResizeTest, ResizeOrFailNamesBothShapes) {
  float data[6] = {};
  kiln::DenseTensor<2> fixed(kiln::ScalarType::Float, {2, 3}, data);
  kiln::KernelRuntimeContext ctx;
  kiln::Tensor t = fixed.tensor();
  EXPECT_FALSE(kiln::resize_or_fail(ctx, t, kOther));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "[2, 3]", ctx.failure_message());
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "[3, 2]", ctx.failure_message());
}

}  // namespace
