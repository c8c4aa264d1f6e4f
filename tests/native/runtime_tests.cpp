// Unit tests of the runtime core and registry; run by tests/test_native.py, which checks the
// exit code and the closing "N passed, N failed" line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/core/dense_tensor.h"
#include "runtime/core/half.h"
#include "runtime/core/result.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/kernel/unbox.h"
#include "runtime/platform/log.h"

namespace {

int passed = 0;
int failed = 0;

#define CHECK(cond)                                                 \
  do {                                                              \
    if (cond) {                                                     \
      ++passed;                                                     \
    } else {                                                        \
      ++failed;                                                     \
      std::printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    }                                                               \
  } while (0)

std::vector<std::string> captured_log;
void capture_sink(kiln::LogLevel, const char* message) { captured_log.emplace_back(message); }

bool log_contains(const char* text) {
  for (const auto& line : captured_log) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

void test_half_round_trip_and_rounding() {
  int mismatches = 0;
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const kiln::Half h = kiln::Half::from_bits(static_cast<uint16_t>(bits));
    const float f = h;
    if (std::isnan(f)) continue;
    if (kiln::Half(f).x != h.x) ++mismatches;
  }
  CHECK(mismatches == 0);
  CHECK(kiln::Half(1.0f + 1.0f / 2048).x == kiln::Half(1.0f).x);  // tie rounds to even
  CHECK(kiln::Half(1.0f + 3.0f / 2048).x == 0x3c02);              // tie rounds up to even
  CHECK(kiln::Half(65520.0f).x == 0x7c00);                        // overflow to infinity
  CHECK(kiln::Half(65519.0f).x == 0x7bff);
  CHECK(kiln::Half(5.9604644775390625e-8f).x == 0x0001);  // smallest subnormal
  CHECK(kiln::Half(2.98e-8f).x == 0x0000);                // below half of it: zero
  CHECK(std::isnan(static_cast<float>(kiln::Half(NAN))));
  CHECK(kiln::BFloat16(1.00390625f).x == 0x3f80);  // tie to even (1 + 2^-8)
  CHECK(kiln::BFloat16(1.01171875f).x == 0x3f82);  // tie to even upwards
  CHECK(std::isnan(static_cast<float>(kiln::BFloat16(NAN))));
  CHECK(static_cast<float>(kiln::BFloat16(-2.5f)) == -2.5f);
}

void test_result() {
  kiln::Result<int> ok(7);
  kiln::Result<int> bad(kiln::Error::NotFound);
  CHECK(ok.ok() && *ok == 7);
  CHECK(!bad.ok() && bad.error() == kiln::Error::NotFound);
  kiln::Result<int> misuse(kiln::Error::Ok);
  CHECK(misuse.error() == kiln::Error::Internal);
}

void test_resize_rules() {
  float data[6] = {};
  kiln::DenseTensor<2> fixed(kiln::ScalarType::Float, {2, 3}, data);
  const kiln::SizesType same[] = {2, 3};
  const kiln::SizesType other[] = {3, 2};
  const kiln::SizesType bigger[] = {4, 3};
  const kiln::SizesType rank1[] = {6};
  CHECK(fixed.impl().resize(same) == kiln::Error::Ok);
  CHECK(fixed.impl().resize(other) == kiln::Error::NotSupported);

  kiln::DenseTensor<2> bound(kiln::ScalarType::Float, {2, 3}, data,
                             kiln::TensorShapeDynamism::DynamicBound);
  CHECK(bound.impl().resize(other) == kiln::Error::Ok);
  CHECK(bound.impl().sizes()[0] == 3 && bound.impl().strides()[0] == 2);
  CHECK(bound.impl().resize(bigger) == kiln::Error::NotSupported);
  CHECK(bound.impl().resize(rank1) == kiln::Error::NotSupported);
  const kiln::SizesType negative[] = {-1, 3};
  CHECK(bound.impl().resize(negative) == kiln::Error::InvalidArgument);

  kiln::KernelRuntimeContext ctx;
  kiln::Tensor t = fixed.tensor();
  CHECK(!kiln::resize_or_fail(ctx, t, other));
  CHECK(std::strstr(ctx.failure_message(), "[2, 3]") != nullptr);
  CHECK(std::strstr(ctx.failure_message(), "[3, 2]") != nullptr);
}

void test_context() {
  kiln::KernelRuntimeContext ctx;
  ctx.set_op_name("aten::foo.out");
  ctx.fail(kiln::Error::InvalidArgument, "first %d", 1);
  ctx.fail(kiln::Error::NotSupported, "second");
  CHECK(ctx.failure_state() == kiln::Error::InvalidArgument);
  CHECK(std::strcmp(ctx.failure_message(), "aten::foo.out: first 1") == 0);
  ctx.reset_failure();
  CHECK(ctx.failure_state() == kiln::Error::Ok);
  CHECK(!ctx.allocate_temp(16).ok());
  alignas(16) unsigned char buffer[64];
  kiln::MemoryAllocator allocator(buffer, sizeof(buffer));
  kiln::KernelRuntimeContext with_temp(&allocator);
  CHECK(with_temp.allocate_temp(48).ok());
  CHECK(!with_temp.allocate_temp(48).ok());
}

void test_unboxing() {
  float data[1] = {};
  kiln::DenseTensor<1> t(kiln::ScalarType::Float, {1}, data);
  const kiln::ArgSpec specs[] = {{"self", kiln::ArgKind::Tensor},
                                 {"alpha", kiln::ArgKind::Scalar},
                                 {"dim", kiln::ArgKind::OptionalIntList},
                                 {"scale", kiln::ArgKind::Double},
                                 {"dtype", kiln::ArgKind::OptionalScalarType}};
  kiln::EValue values[] = {kiln::EValue(t.tensor()), kiln::EValue(true), kiln::EValue(),
                           kiln::EValue(int64_t{2}), kiln::EValue(int64_t{6})};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3], &values[4]};
  kiln::KernelRuntimeContext ctx;
  CHECK(kiln::check_arguments(ctx, "op", stack, specs) == kiln::Error::Ok);

  CHECK(kiln::check_arguments(ctx, "op", {stack, 4}, specs) == kiln::Error::InvalidProgram);
  CHECK(std::strstr(ctx.failure_message(), "expected 5 arguments") != nullptr);

  kiln::KernelRuntimeContext ctx2;
  values[0] = kiln::EValue(int64_t{3});
  CHECK(kiln::check_arguments(ctx2, "aten::x.out", stack, specs) == kiln::Error::InvalidProgram);
  CHECK(std::strcmp(ctx2.failure_message(),
                    "aten::x.out: argument 0 (self) expected Tensor, got Int") == 0);

  kiln::KernelRuntimeContext ctx3;
  values[0] = kiln::EValue(t.tensor());
  values[4] = kiln::EValue(int64_t{99});
  CHECK(kiln::check_arguments(ctx3, "op", stack, specs) == kiln::Error::InvalidProgram);
  CHECK(std::strstr(ctx3.failure_message(), "argument 4 (dtype)") != nullptr);
}

kiln::Error boxed_ok(kiln::KernelRuntimeContext&, kiln::Span<kiln::EValue*>) {
  return kiln::Error::Ok;
}
kiln::Error boxed_other(kiln::KernelRuntimeContext&, kiln::Span<kiln::EValue*>) {
  return kiln::Error::NotSupported;
}

// An Ascend-style kernel that cannot take its inputs: the dispatcher falls back.
kiln::Error boxed_declines(kiln::KernelRuntimeContext& ctx, kiln::Span<kiln::EValue*>) {
  ctx.fail(kiln::Error::KernelDeclined, "the ascend kernel takes no Double");
  return kiln::Error::KernelDeclined;
}

constexpr uint64_t h(const char* name) { return kiln::hash_operator_name(name); }

// Builds sorted tables in the test because their order depends on the hash values.
struct TestTable {
  std::vector<kiln::Kernel> kernels;
  kiln::KernelTable table;
  TestTable(const char* library, std::vector<kiln::Kernel> entries) : kernels(std::move(entries)) {
    std::sort(kernels.begin(), kernels.end(), [](const kiln::Kernel& a, const kiln::Kernel& b) {
      if (a.name_hash != b.name_hash) return a.name_hash < b.name_hash;
      if (int c = std::strcmp(a.name, b.name)) return c < 0;
      if (a.backend != b.backend) return a.backend < b.backend;
      return std::strcmp(a.key, b.key) < 0;
    });
    table = {library, kernels.data(), kernels.size()};
  }
};

void test_registry() {
  kiln::reset_registry_for_testing();
  using kiln::Backend;
  static TestTable lib_a(
      "lib_a",
      {{"aten::add.out", h("aten::add.out"), "", Backend::Portable, boxed_ok, "a.yaml:1"},
       {"aten::add.out", h("aten::add.out"), "v1/6;0|6;0|6;0", Backend::Portable, boxed_other,
        "a.yaml:4"},
       {"aten::mul.out", h("aten::mul.out"), "", Backend::Ascend, boxed_ok, "a.yaml:8"},
       {"aten::relu.out", h("aten::relu.out"), "", Backend::Portable, boxed_ok, "a.yaml:12"},
       {"aten::div.out", h("aten::div.out"), "v1/6;0|6;0|6;0", Backend::Portable, boxed_ok,
        "a.yaml:16"}});
  CHECK(kiln::register_kernels(lib_a.table) == kiln::Error::Ok);
  CHECK(kiln::register_kernels(lib_a.table) == kiln::Error::Ok);  // idempotent
  CHECK(kiln::registered_kernel_count() == 5);

  const Backend portable[] = {Backend::Portable};
  const Backend ascend_first[] = {Backend::Ascend, Backend::Portable};
  auto by_default = kiln::find_kernel("aten::add.out", "", portable);
  CHECK(by_default.ok() && (*by_default)->function == boxed_ok);
  auto by_key = kiln::find_kernel("aten::add.out", "v1/6;0|6;0|6;0", portable);
  CHECK(by_key.ok() && (*by_key)->function == boxed_other);
  auto other_key = kiln::find_kernel("aten::add.out", "v1/7;0|7;0|7;0", portable);
  CHECK(other_key.ok() && (*other_key)->function == boxed_ok);
  CHECK(!kiln::find_kernel("aten::mul.out", "", portable).ok());
  CHECK(!kiln::find_kernel("aten::nope.out", "", portable).ok());

  kiln::reset_fallback_stats();
  auto on_ascend = kiln::find_kernel("aten::mul.out", "", ascend_first);
  CHECK(on_ascend.ok() && (*on_ascend)->backend == Backend::Ascend);
  CHECK(kiln::fallback_count() == 0);
  auto fell_back = kiln::find_kernel("aten::relu.out", "", ascend_first);
  CHECK(fell_back.ok() && (*fell_back)->backend == Backend::Portable);
  (void)kiln::find_kernel("aten::relu.out", "", ascend_first);
  CHECK(kiln::fallback_count() == 2);
  kiln::FallbackRecord records[4];
  CHECK(kiln::fallback_records(records) == 1);
  CHECK(std::strcmp(records[0].name, "aten::relu.out") == 0 && records[0].count == 2);

  // Keyed lookup from a stack of Float tensors.
  float data[2] = {};
  kiln::DenseTensor<1> t(kiln::ScalarType::Float, {2}, data);
  kiln::EValue values[] = {kiln::EValue(t.tensor()), kiln::EValue(t.tensor()),
                           kiln::EValue(int64_t{1}), kiln::EValue(t.tensor())};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  auto from_stack = kiln::find_kernel_for_stack("aten::add.out", stack, portable);
  CHECK(from_stack.ok() && (*from_stack)->function == boxed_other);

  // A duplicate names both origins and registers nothing.
  static TestTable lib_b(
      "lib_b",
      {{"aten::sub.out", h("aten::sub.out"), "", Backend::Portable, boxed_ok, "b.yaml:1"},
       {"aten::relu.out", h("aten::relu.out"), "", Backend::Portable, boxed_ok, "b.yaml:9"}});
  captured_log.clear();
  CHECK(kiln::register_kernels(lib_b.table) == kiln::Error::RegistrationAlreadyRegistered);
  const std::string message = kiln::registry_last_error();
  CHECK(message.find("a.yaml:12") != std::string::npos);
  CHECK(message.find("b.yaml:9") != std::string::npos);
  CHECK(message.find("lib_a") != std::string::npos && message.find("lib_b") != std::string::npos);
  CHECK(log_contains("duplicate kernel for aten::relu.out"));
  CHECK(!kiln::has_operator("aten::sub.out", portable));

  // Unsorted tables are refused.
  static kiln::Kernel unsorted[] = {
      {"x::b.out", h("x::b.out"), "", Backend::Portable, boxed_ok, "u:1"},
      {"x::a.out", h("x::a.out"), "", Backend::Portable, boxed_ok, "u:2"}};
  if (unsorted[0].name_hash < unsorted[1].name_hash) std::swap(unsorted[0], unsorted[1]);
  static const kiln::KernelTable unsorted_table = {"lib_u", unsorted, 2};
  CHECK(kiln::register_kernels(unsorted_table) == kiln::Error::InvalidArgument);

  // Missing operators: structured report plus ExecuTorch-style log lines.
  captured_log.clear();
  const kiln::OperatorRequest requests[] = {{"aten::add.out", nullptr},
                                            {"aten::squeeze_copy.dim_out", nullptr},
                                            {"aten::relu.out", ""},
                                            {"aten::mul.out", nullptr}};
  kiln::MissingOperator missing[4];
  CHECK(kiln::find_missing_operators(requests, portable, missing) == 2);
  CHECK(missing[0].index == 1 && std::strcmp(missing[0].name, "aten::squeeze_copy.dim_out") == 0);
  CHECK(missing[1].index == 3 &&
        missing[1].backends_searched == kiln::backend_bit(Backend::Portable));
  CHECK(log_contains("Missing operator: [1] aten::squeeze_copy.dim_out"));
  CHECK(log_contains("Missing operator: [3] aten::mul.out"));
  CHECK(log_contains("2 of 4 operators are missing"));
  CHECK(missing[0].cause == kiln::MissingCause::NotRegistered);
  CHECK(missing[1].cause == kiln::MissingCause::NoKernelForBackend);
  CHECK(log_contains("Missing operator: [3] aten::mul.out (no kernel for the searched backends)"));

  // A keyed-only op: another dtype has no kernel, and the report says so.
  const kiln::OperatorRequest keyed[] = {{"aten::div.out", "v1/6;0|6;0|6;0"},
                                         {"aten::div.out", "v1/7;0|7;0|7;0"}};
  CHECK(kiln::find_missing_operators(keyed, portable, missing) == 1);
  CHECK(missing[0].index == 1 && missing[0].cause == kiln::MissingCause::NoKernelForKey);
  CHECK(log_contains("(kernel key v1/7;0|7;0|7;0: no kernel for this kernel key)"));
  kiln::reset_registry_for_testing();
}

void test_call_operator_falls_back_when_a_kernel_declines() {
  kiln::reset_registry_for_testing();
  using kiln::Backend;
  static TestTable lib(
      "lib_fallback",
      {{"aten::exp.out", h("aten::exp.out"), "", Backend::Ascend, boxed_declines, "f.yaml:1"},
       {"aten::exp.out", h("aten::exp.out"), "", Backend::Portable, boxed_ok, "f.yaml:2"},
       {"aten::abs.out", h("aten::abs.out"), "", Backend::Ascend, boxed_declines, "f.yaml:3"},
       {"aten::neg.out", h("aten::neg.out"), "", Backend::Portable, boxed_ok, "f.yaml:4"}});
  CHECK(kiln::register_kernels(lib.table) == kiln::Error::Ok);
  const Backend ascend_first[] = {Backend::Ascend, Backend::Portable};
  kiln::Span<kiln::EValue*> no_args;

  kiln::reset_fallback_stats();
  kiln::KernelRuntimeContext ctx;
  const kiln::Kernel* served = nullptr;
  CHECK(kiln::call_operator(ctx, "aten::exp.out", no_args, ascend_first, true, &served) ==
        kiln::Error::Ok);
  CHECK(served != nullptr && served->backend == Backend::Portable);
  CHECK(ctx.failure_state() == kiln::Error::Ok);  // the decline is not the caller's failure
  kiln::FallbackRecord records[4];
  CHECK(kiln::fallback_records(records) == 1);
  CHECK(std::strstr(records[0].reason, "takes no Double") != nullptr);
  CHECK(records[0].requested == Backend::Ascend && records[0].served_by == Backend::Portable);

  // No fallback allowed: the decline becomes NotSupported with the kernel's reason.
  kiln::KernelRuntimeContext strict;
  CHECK(kiln::call_operator(strict, "aten::exp.out", no_args, ascend_first, false) ==
        kiln::Error::NotSupported);
  CHECK(std::strstr(strict.failure_message(), "fallback to another backend is disabled"));
  kiln::KernelRuntimeContext missing;
  CHECK(kiln::call_operator(missing, "aten::neg.out", no_args, ascend_first, false) ==
        kiln::Error::OperatorMissing);

  // Without a portable kernel a decline has nowhere to go.
  kiln::KernelRuntimeContext nowhere;
  CHECK(kiln::call_operator(nowhere, "aten::abs.out", no_args, ascend_first) ==
        kiln::Error::NotSupported);
  CHECK(std::strstr(nowhere.failure_message(), "no other backend has a kernel"));
  // A backend without a kernel is a counted fallback too.
  kiln::KernelRuntimeContext plain;
  CHECK(kiln::call_operator(plain, "aten::neg.out", no_args, ascend_first) == kiln::Error::Ok);
  CHECK(kiln::fallback_count() == 2);
}

}  // namespace

int main() {
  kiln::set_log_sink(capture_sink);
  test_half_round_trip_and_rounding();
  test_result();
  test_resize_rules();
  test_context();
  test_unboxing();
  test_registry();
  test_call_operator_falls_back_when_a_kernel_declines();
  kiln::set_log_sink(nullptr);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
