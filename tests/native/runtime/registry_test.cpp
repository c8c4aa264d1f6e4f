// The registry: registration, lookup by kernel key and backend, counted fallbacks, and tables it
// refuses (duplicates naming both origins, unsorted tables).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/last_error.h"
#include "tests/native/runtime/registry_fixture.h"

namespace registry_test {
namespace {

using kiln::Backend;

TEST_F(RegistryTest, RegisteringATableAgainIsANoOp) {
  EXPECT_EQ(kiln::register_kernels(lib_a().table), kiln::Error::Ok);
  EXPECT_EQ(kiln::registered_kernel_count(), 5u);
}

TEST_F(RegistryTest, FindsTheKeyedKernelAndFallsBackToTheDefaultKey) {
  auto by_default = kiln::find_kernel("aten::add.out", "", portable_);
  ASSERT_TRUE(by_default.ok());
  EXPECT_EQ((*by_default)->function, boxed_ok);
  auto by_key = kiln::find_kernel("aten::add.out", "v1/6;0|6;0|6;0", portable_);
  ASSERT_TRUE(by_key.ok());
  EXPECT_EQ((*by_key)->function, boxed_other);
  auto other_key = kiln::find_kernel("aten::add.out", "v1/7;0|7;0|7;0", portable_);
  ASSERT_TRUE(other_key.ok());
  EXPECT_EQ((*other_key)->function, boxed_ok);
  EXPECT_FALSE(kiln::find_kernel("aten::mul.out", "", portable_).ok());
  EXPECT_FALSE(kiln::find_kernel("aten::nope.out", "", portable_).ok());
}

TEST_F(RegistryTest, CountsFallbacksToAnotherBackend) {
  kiln::reset_fallback_stats();
  auto on_ascend = kiln::find_kernel("aten::mul.out", "", ascend_first_);
  ASSERT_TRUE(on_ascend.ok());
  EXPECT_EQ((*on_ascend)->backend, Backend::Ascend);
  EXPECT_EQ(kiln::fallback_count(), 0u);
  auto fell_back = kiln::find_kernel("aten::relu.out", "", ascend_first_);
  ASSERT_TRUE(fell_back.ok());
  EXPECT_EQ((*fell_back)->backend, Backend::Portable);
  (void)kiln::find_kernel("aten::relu.out", "", ascend_first_);
  EXPECT_EQ(kiln::fallback_count(), 2u);
  kiln::FallbackRecord records[4];
  ASSERT_EQ(kiln::fallback_records(records), 1u);
  EXPECT_STREQ(records[0].name, "aten::relu.out");
  EXPECT_EQ(records[0].count, 2u);
}

TEST_F(RegistryTest, FindsTheKernelKeyedByAStackOfFloatTensors) {
  float data[2] = {};
  kiln::DenseTensor<1> t(kiln::ScalarType::Float, {2}, data);
  kiln::EValue values[] = {kiln::EValue(t.tensor()), kiln::EValue(t.tensor()),
                           kiln::EValue(int64_t{1}), kiln::EValue(t.tensor())};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  auto from_stack = kiln::find_kernel_for_stack("aten::add.out", stack, portable_);
  ASSERT_TRUE(from_stack.ok());
  EXPECT_EQ((*from_stack)->function, boxed_other);
}

TEST_F(RegistryTest, KeysAnInPlaceStackByItsArgumentsNotItsReturnSlot) {
  static const TestTable lib_c(
      "lib_c", {{"aten::copy_", h("aten::copy_"), "", Backend::Portable, boxed_ok, "c.yaml:1", 1},
                {"aten::copy_", h("aten::copy_"), "v1/6;0|6;0", Backend::Portable, boxed_other,
                 "c.yaml:1", 1}});
  ASSERT_EQ(kiln::register_kernels(lib_c.table), kiln::Error::Ok);
  float data[2] = {};
  kiln::DenseTensor<1> t(kiln::ScalarType::Float, {2}, data);
  // The return slot still holds an earlier call's result (self), which is no argument.
  kiln::EValue values[] = {kiln::EValue(t.tensor()), kiln::EValue(t.tensor()), kiln::EValue(false),
                           kiln::EValue(t.tensor())};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  auto from_stack = kiln::find_kernel_for_stack("aten::copy_", stack, portable_);
  ASSERT_TRUE(from_stack.ok());
  EXPECT_EQ((*from_stack)->function, boxed_other);
}

TEST_F(RegistryTest, ADuplicateNamesBothOriginsAndRegistersNothing) {
  static const TestTable lib_b(
      "lib_b",
      {{"aten::sub.out", h("aten::sub.out"), "", Backend::Portable, boxed_ok, "b.yaml:1"},
       {"aten::relu.out", h("aten::relu.out"), "", Backend::Portable, boxed_ok, "b.yaml:9"}});
  EXPECT_EQ(kiln::register_kernels(lib_b.table), kiln::Error::RegistrationAlreadyRegistered);
  const std::string message = kiln::last_error();
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "a.yaml:12", message);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "b.yaml:9", message);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "lib_a", message);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "lib_b", message);
  EXPECT_TRUE(log_contains("duplicate kernel for aten::relu.out"));
  EXPECT_FALSE(kiln::has_operator("aten::sub.out", portable_));
}

TEST_F(RegistryTest, RefusesAnUnsortedTable) {
  static kiln::Kernel unsorted[] = {
      {"x::b.out", h("x::b.out"), "", Backend::Portable, boxed_ok, "u:1"},
      {"x::a.out", h("x::a.out"), "", Backend::Portable, boxed_ok, "u:2"}};
  if (unsorted[0].name_hash < unsorted[1].name_hash) std::swap(unsorted[0], unsorted[1]);
  static const kiln::KernelTable unsorted_table = {"lib_u", unsorted, 2};
  EXPECT_EQ(kiln::register_kernels(unsorted_table), kiln::Error::InvalidArgument);
}

}  // namespace
}  // namespace registry_test
