// Kiln's own checks of one execution plan, on top of the FlatBuffers verifier: every index, tag,
// size, offset and byte count the executor will later use without checking.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"

namespace kiln {

class Program;
namespace pte_format {
struct ExecutionPlan;
}

// The checks' work (items, dimensions and argument pairs examined) is bounded by the file's
// size: FlatBuffers tables can be shared, so a small file can name one long list many times.
// A program examines at most this many per byte of its file, far more than any export makes.
constexpr uint64_t kCheckWorkPerFileByte = 256;
constexpr uint64_t kCheckWorkBase = uint64_t{1} << 20;

// What the checks of one program may still examine; check_plan draws on it.
struct CheckBudget {
  uint64_t remaining;
  uint64_t total;
};
inline CheckBudget check_budget(size_t file_size) {
  const uint64_t total = kCheckWorkBase + kCheckWorkPerFileByte * uint64_t{file_size};
  return {total, total};
}

// InvalidProgram (NotSupported for delegates; for external tensors, InvalidArgument without a
// data file and NotFound for a key it lacks) with kiln::last_error() naming the method, the value
// or instruction and what is wrong; InvalidProgram too when the checks would examine more than
// `budget` holds. Adds the plan's external tensors, each resolved in the data file, to
// `num_external`.
Error check_plan(const Program& program, const pte_format::ExecutionPlan& plan, CheckBudget& budget,
                 size_t& num_external);

// The FlatBuffers verifier checks a vector's length field for 4-byte alignment but not its
// elements; 8-byte elements are read as such, so they must be checked as well.
inline bool is_aligned(const void* data, size_t alignment) {
  return reinterpret_cast<uintptr_t>(data) % alignment == 0;
}

}  // namespace kiln
