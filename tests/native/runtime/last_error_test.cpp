// The one error channel (runtime/platform/last_error.h): per thread, always a valid C string, and
// written by each layer that fails: the registry, the executor's load and the MindSpore glue.
#include "runtime/platform/last_error.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

#include "runtime/executor/program.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/mindspore/aot_call.h"
#include "runtime/platform/log.h"
#include "runtime/platform/mapped_file.h"

namespace last_error_test {
namespace {

bool contains(const char* text, const char* part) { return std::strstr(text, part) != nullptr; }

// Whether `text` is well-formed UTF-8 (no truncated or stray continuation bytes).
bool valid_utf8(const char* text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text);
  while (*p != 0) {
    size_t extra = 0;
    if (*p < 0x80) {
      extra = 0;
    } else if ((*p & 0xE0) == 0xC0) {
      extra = 1;
    } else if ((*p & 0xF0) == 0xE0) {
      extra = 2;
    } else if ((*p & 0xF8) == 0xF0) {
      extra = 3;
    } else {
      return false;
    }
    ++p;
    for (size_t i = 0; i < extra; ++i, ++p) {
      if ((*p & 0xC0) != 0x80) return false;
    }
  }
  return true;
}

TEST(LastErrorTest, EachThreadReadsItsOwnMessage) {
  kiln::clear_last_error();
  KILN_SET_ERROR("main thread: %d", 1);
  std::string other;
  std::string other_before;
  std::thread thread([&] {
    other_before = kiln::last_error();
    KILN_SET_ERROR("other thread: %d", 2);
    other = kiln::last_error();
  });
  thread.join();
  EXPECT_EQ(other_before, "");
  EXPECT_EQ(other, "other thread: 2");
  EXPECT_STREQ(kiln::last_error(), "main thread: 1");
  kiln::clear_last_error();
  EXPECT_STREQ(kiln::last_error(), "");
}

TEST(LastErrorTest, ALongMessageIsCutAtACharacterBoundary) {
  // Two-, three- and four-byte characters at every offset, so one of them straddles the cut.
  for (size_t pad = 0; pad < 4; ++pad) {
    std::string text(pad, 'x');
    while (text.size() < 4096) text += "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x94\xA5";
    KILN_SET_ERROR("%s", text.c_str());
    const char* message = kiln::last_error();
    const size_t length = std::strlen(message);
    EXPECT_GT(length, 400u);
    EXPECT_LT(length, text.size());
    EXPECT_EQ(text.compare(0, length, message), 0);
    EXPECT_TRUE(valid_utf8(message)) << "pad " << pad;
  }
}

TEST(LastErrorTest, TheRegistryWritesIt) {
  kiln::clear_last_error();
  static const kiln::Kernel kernels[] = {
      {"x::broken.out", 0, "", kiln::Backend::Portable, nullptr, "broken.yaml:1"}};
  static const kiln::KernelTable table = {"lib_broken", kernels, 1};
  EXPECT_EQ(kiln::register_kernels(table), kiln::Error::InvalidArgument);
  EXPECT_TRUE(contains(kiln::last_error(), "lib_broken")) << kiln::last_error();
}

TEST(LastErrorTest, AProgramLoadWritesIt) {
  kiln::clear_last_error();
  alignas(16) static const uint8_t garbage[64] = {1, 2, 3, 4, 5, 6, 7, 8};
  const kiln::Result<kiln::Program> program = kiln::Program::load(garbage, sizeof(garbage));
  EXPECT_EQ(program.error(), kiln::Error::InvalidProgram);
  EXPECT_TRUE(contains(kiln::last_error(), "program")) << kiln::last_error();
}

TEST(LastErrorTest, OpeningAMissingFileWritesIt) {
  kiln::clear_last_error();
  const kiln::MappedFile file = kiln::MappedFile::open("/nonexistent/kiln.pte");
  EXPECT_FALSE(file.ok());
  EXPECT_EQ(file.size(), 0u);
  EXPECT_TRUE(contains(kiln::last_error(), "/nonexistent/kiln.pte")) << kiln::last_error();
}

TEST(LastErrorTest, AMindSporeAotCallWritesIt) {
  kiln::clear_last_error();
  static const kiln::mindspore::AotArg args[] = {kiln::mindspore::AotArg::Tensor,
                                                 kiln::mindspore::AotArg::Tensor};
  const kiln::mindspore::AotOp op = {"kiln::test_op.out", args, 2, 1, kiln::Error::Ok};
  EXPECT_EQ(kiln::mindspore::run_aot_op(op, 3, nullptr, nullptr, nullptr, nullptr), 1);
  EXPECT_TRUE(contains(kiln::last_error(), "kiln::test_op.out takes 1 input, then 1 output; got 3"))
      << kiln::last_error();
}

TEST(LastErrorTest, AMindSporeFailureOnItsThreadReachesTheCallersThread) {
  kiln::mindspore::clear_last_error();
  static const kiln::mindspore::AotArg args[] = {kiln::mindspore::AotArg::Tensor};
  const kiln::mindspore::AotOp op = {"kiln::other_op.out", args, 1, 1, kiln::Error::Ok};
  std::thread mindspore_worker(
      [&] { (void)kiln::mindspore::run_aot_op(op, 5, nullptr, nullptr, nullptr, nullptr); });
  mindspore_worker.join();
  EXPECT_TRUE(contains(kiln::mindspore::last_error(), "kiln::other_op.out takes 0 inputs"))
      << kiln::mindspore::last_error();
  kiln::mindspore::clear_last_error();
  EXPECT_STREQ(kiln::mindspore::last_error(), "");
}

std::string logged;  // the lines logged while a test's sink is installed
void log_to_string(kiln::LogLevel /*level*/, const char* message) {
  logged += message;
  logged += '\n';
}

TEST(LastErrorTest, AReportedMindSporeFailureIsHandedOverWithoutALogLine) {
  static const kiln::mindspore::AotArg args[] = {kiln::mindspore::AotArg::Tensor};
  const kiln::mindspore::AotOp op = {"kiln::reported_op.out", args, 1, 1, kiln::Error::Ok};
  logged.clear();
  const kiln::LogSink previous = kiln::set_log_sink(log_to_string);
  kiln::mindspore::begin_reported_call();
  EXPECT_EQ(kiln::mindspore::run_aot_op(op, 4, nullptr, nullptr, nullptr, nullptr), 1);
  kiln::mindspore::end_reported_call();
  const std::string reported = kiln::mindspore::last_error();
  const std::string logged_while_reported = logged;
  // Without a reporting caller the same failure is logged, for users of ops.Custom.
  EXPECT_EQ(kiln::mindspore::run_aot_op(op, 4, nullptr, nullptr, nullptr, nullptr), 1);
  kiln::set_log_sink(previous);
  EXPECT_TRUE(contains(reported.c_str(), "kiln::reported_op.out takes 0 inputs")) << reported;
  EXPECT_EQ(logged_while_reported, "");
  EXPECT_TRUE(contains(logged.c_str(), "kiln::reported_op.out takes 0 inputs")) << logged;
  kiln::mindspore::clear_last_error();
}

}  // namespace
}  // namespace last_error_test
