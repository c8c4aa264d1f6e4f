// Backends a kernel can be registered for, and their names as written in YAML and APIs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kiln {

enum class Backend : uint8_t { Portable = 0, Ascend = 1 };

constexpr size_t kNumBackends = 2;

// "portable" / "ascend"
const char* to_string(Backend backend);

// Parses a backend name; false for an unknown name (out untouched).
bool backend_from_string(std::string_view name, Backend* out);

// A set of backends as bits (1 << Backend), used in reports.
using BackendMask = uint8_t;

constexpr BackendMask backend_bit(Backend backend) {
  return static_cast<BackendMask>(1u << static_cast<uint8_t>(backend));
}

}  // namespace kiln
