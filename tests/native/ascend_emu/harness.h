// Helpers for the Ascend emulator's GoogleTest tests: launch expectations (success, or failure
// with a message containing given fragments), device buffers freed per test, a SoC scope.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "kernels/ascend/common/launch.h"
#include "kernels/ascend/emu/emulator.h"

namespace emu_test {

// In a test kernel: orders the pipe before `kEvent` before the pipe after it (e.g. MTE2_V: the
// vector unit reads what a DataCopy into a TBuf wrote), as a kernel must on the device.
template <AscendC::HardEvent kEvent>
inline void sync_pipes() {
  AscendC::SetFlag<kEvent>(EVENT_ID0);
  AscendC::WaitFlag<kEvent>(EVENT_ID0);
}

// A launch that must succeed; the failure shows the emulator's message.
#define EXPECT_LAUNCH_OK(outcome) EXPECT_PRED_FORMAT1(::emu_test::launch_succeeded, outcome)

// A launch that must fail with a message containing every fragment.
#define EXPECT_LAUNCH_FAILS(outcome, ...) \
  EXPECT_PRED_FORMAT1(::emu_test::launch_failed_with({__VA_ARGS__}), outcome)

inline testing::AssertionResult launch_succeeded(const char* expression,
                                                 const kiln::ascend::LaunchOutcome& outcome) {
  if (outcome.ok) return testing::AssertionSuccess();
  return testing::AssertionFailure() << expression << " failed: " << outcome.message;
}

// The predicate formatter behind EXPECT_LAUNCH_FAILS.
class LaunchFailedWith {
 public:
  explicit LaunchFailedWith(std::initializer_list<const char*> fragments) : fragments_(fragments) {}

  testing::AssertionResult operator()(const char* expression,
                                      const kiln::ascend::LaunchOutcome& outcome) const {
    // KILN_EMU_TEST_VERBOSE=1 shows every message the emulator produced, to review their wording.
    if (std::getenv("KILN_EMU_TEST_VERBOSE") != nullptr) {
      std::printf("%s\n", outcome.message.c_str());
    }
    std::string missing;
    for (const char* fragment : fragments_) {
      if (outcome.message.find(fragment) == std::string::npos) {
        missing += std::string("\n  message lacks \"") + fragment + "\"";
      }
    }
    if (!outcome.ok && missing.empty()) return testing::AssertionSuccess();
    return testing::AssertionFailure() << expression << " " << (outcome.ok ? "succeeded" : "failed")
                                       << ": " << outcome.message << missing;
  }

 private:
  std::vector<const char*> fragments_;
};

inline LaunchFailedWith launch_failed_with(std::initializer_list<const char*> fragments) {
  return LaunchFailedWith(fragments);
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

}  // namespace emu_test
