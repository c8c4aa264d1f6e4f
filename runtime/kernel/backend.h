// Backends a kernel can be registered for, and their names as written in YAML and APIs. The list
// itself is runtime/kernel/backends.def, shared with the codegen and CMake.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kiln {

// Values in backends.def order, from 0.
enum class Backend : uint8_t {
#define KILN_BACKEND(enumerator, name) enumerator,
#include "runtime/kernel/backends.def"
#undef KILN_BACKEND
};

// Backend names by value: "portable", "ascend", ...
inline constexpr const char* kBackendNames[] = {
#define KILN_BACKEND(enumerator, name) #name,
#include "runtime/kernel/backends.def"
#undef KILN_BACKEND
};

constexpr size_t kNumBackends = sizeof(kBackendNames) / sizeof(kBackendNames[0]);

// "portable" / "ascend"
const char* to_string(Backend backend);

// Parses a backend name; false for an unknown name (out untouched).
bool backend_from_string(std::string_view name, Backend* out);

// A set of backends as bits (1 << Backend), used in reports.
using BackendMask = uint8_t;
static_assert(kNumBackends <= 8 * sizeof(BackendMask), "BackendMask needs a bit per backend");

constexpr BackendMask backend_bit(Backend backend) {
  return static_cast<BackendMask>(1u << static_cast<uint8_t>(backend));
}

}  // namespace kiln
