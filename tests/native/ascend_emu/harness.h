// Test harness for the Ascend emulator tests: CHECK counters, device buffers, failure matching.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "kernels/ascend/common/launch.h"
#include "kernels/ascend/emu/emulator.h"

namespace emu_test {

extern int passed;
extern int failed;

#define CHECK(cond)                                                 \
  do {                                                              \
    if (cond) {                                                     \
      ++::emu_test::passed;                                         \
    } else {                                                        \
      ++::emu_test::failed;                                         \
      std::printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    }                                                               \
  } while (0)

// A launch that must succeed; prints the emulator's message when it does not.
#define CHECK_OK(outcome)                                                                         \
  do {                                                                                            \
    const auto& check_ok_outcome_ = (outcome);                                                    \
    CHECK(check_ok_outcome_.ok);                                                                  \
    if (!check_ok_outcome_.ok) std::printf("  message: %s\n", check_ok_outcome_.message.c_str()); \
  } while (0)

// A launch that must fail with a message containing every fragment.
#define CHECK_FAILS(outcome, ...) \
  ::emu_test::check_fails((outcome), {__VA_ARGS__}, __FILE__, __LINE__)

inline void check_fails(const kiln::ascend::LaunchOutcome& outcome,
                        std::initializer_list<const char*> fragments, const char* file, int line) {
  // KILN_EMU_TEST_VERBOSE=1 shows every message the emulator produced, to review their wording.
  if (std::getenv("KILN_EMU_TEST_VERBOSE") != nullptr) std::printf("%s\n", outcome.message.c_str());
  bool ok = !outcome.ok;
  for (const char* fragment : fragments) {
    if (outcome.message.find(fragment) == std::string::npos) {
      ok = false;
      std::printf("FAILED %s:%d: message lacks \"%s\"\n", file, line, fragment);
    }
  }
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAILED %s:%d: launch %s: %s\n", file, line, outcome.ok ? "succeeded" : "failed",
                outcome.message.c_str());
  }
}

// Device allocations of one test, freed together.
class DevicePool {
 public:
  DevicePool() = default;
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;
  ~DevicePool() {
    for (void* p : owned_) kiln::ascend::emu::device_free(p);
  }

  template <class T>
  T* alloc(size_t count) {
    void* p = kiln::ascend::emu::device_malloc(count * sizeof(T));
    owned_.push_back(p);
    return static_cast<T*>(p);
  }

  template <class T>
  T* upload(const std::vector<T>& host) {
    T* p = alloc<T>(host.size());
    std::memcpy(p, host.data(), host.size() * sizeof(T));
    return p;
  }

  template <class T>
  uint8_t* upload_struct(const T& value) {
    T* p = alloc<T>(1);
    std::memcpy(p, &value, sizeof(T));
    return reinterpret_cast<uint8_t*>(p);
  }

  template <class T>
  static std::vector<T> download(const T* p, size_t count) {
    std::vector<T> host(count);
    std::memcpy(host.data(), p, count * sizeof(T));
    return host;
  }

 private:
  std::vector<void*> owned_;
};

// Restores the SoC a test switched away from.
class SocScope {
 public:
  explicit SocScope(const char* name) : previous_(kiln::ascend::emu::soc().name) {
    kiln::ascend::emu::set_soc(name);
  }
  ~SocScope() { kiln::ascend::emu::set_soc(previous_); }

 private:
  std::string previous_;
};

void run_correct_kernel_tests();
void run_matmul_tests();
void run_soc_and_copy_rule_tests();
void run_queue_rule_tests();
void run_bounds_rule_tests();
void run_precision_tests();

}  // namespace emu_test
