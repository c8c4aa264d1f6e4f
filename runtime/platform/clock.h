// Monotonic clock for benchmarks and profiling.
#pragma once

#include <cstdint>

namespace kiln {

// Nanoseconds from an arbitrary fixed point; only differences are meaningful.
uint64_t monotonic_ns();

}  // namespace kiln
