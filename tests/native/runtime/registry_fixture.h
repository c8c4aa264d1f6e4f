// Shared by the registry tests: boxed stand-in kernels, sorted test tables, a captured log, and
// a fixture whose registry holds library "lib_a".
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/log.h"
#include "tests/native/kiln_printers.h"

namespace registry_test {

inline kiln::Error boxed_ok(kiln::KernelRuntimeContext&, kiln::Span<kiln::EValue*>) {
  return kiln::Error::Ok;
}

inline kiln::Error boxed_other(kiln::KernelRuntimeContext&, kiln::Span<kiln::EValue*>) {
  return kiln::Error::NotSupported;
}

// An Ascend-style kernel that cannot take its inputs: the dispatcher falls back.
inline kiln::Error boxed_declines(kiln::KernelRuntimeContext& ctx, kiln::Span<kiln::EValue*>) {
  ctx.fail(kiln::Error::KernelDeclined, "the ascend kernel takes no Double");
  return kiln::Error::KernelDeclined;
}

constexpr uint64_t h(const char* name) { return kiln::hash_operator_name(name); }

// Builds a sorted table in the test, because the order depends on the hash values. The registry
// keeps pointers into it: give it static storage duration.
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

// Portable add (default and Float-keyed), Ascend-only mul, portable relu, Float-keyed-only div.
inline const TestTable& lib_a() {
  using kiln::Backend;
  static const TestTable table(
      "lib_a",
      {{"aten::add.out", h("aten::add.out"), "", Backend::Portable, boxed_ok, "a.yaml:1"},
       {"aten::add.out", h("aten::add.out"), "v1/6;0|6;0|6;0", Backend::Portable, boxed_other,
        "a.yaml:4"},
       {"aten::mul.out", h("aten::mul.out"), "", Backend::Ascend, boxed_ok, "a.yaml:8"},
       {"aten::relu.out", h("aten::relu.out"), "", Backend::Portable, boxed_ok, "a.yaml:12"},
       {"aten::div.out", h("aten::div.out"), "v1/6;0|6;0|6;0", Backend::Portable, boxed_ok,
        "a.yaml:16"}});
  return table;
}

// The log lines of the running test (the sink is a plain function, so the store is global).
inline std::vector<std::string>& captured_log() {
  static std::vector<std::string> lines;
  return lines;
}

inline void capture_sink(kiln::LogLevel, const char* message) {
  captured_log().emplace_back(message);
}

// Whether a captured line contains `text`; on failure, lists what was logged.
inline testing::AssertionResult log_contains(const char* text) {
  for (const auto& line : captured_log()) {
    if (line.find(text) != std::string::npos) return testing::AssertionSuccess();
  }
  testing::AssertionResult result = testing::AssertionFailure();
  result << "no log line contains \"" << text << "\"; the log:";
  for (const auto& line : captured_log()) result << "\n  " << line;
  return result;
}

// A fresh registry holding lib_a, with the log captured for the test.
class RegistryTest : public testing::Test {
 protected:
  void SetUp() override {
    kiln::reset_registry_for_testing();
    captured_log().clear();
    kiln::set_log_sink(capture_sink);
    ASSERT_EQ(kiln::register_kernels(lib_a().table), kiln::Error::Ok);
  }

  void TearDown() override {
    kiln::set_log_sink(nullptr);
    kiln::reset_registry_for_testing();
  }

  const kiln::Backend portable_[1] = {kiln::Backend::Portable};
  const kiln::Backend ascend_first_[2] = {kiln::Backend::Ascend, kiln::Backend::Portable};
};

}  // namespace registry_test
