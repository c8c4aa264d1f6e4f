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

// InvalidProgram (or NotSupported for delegates and external data) with kiln::last_error()
// naming the method, the value or instruction and what is wrong.
Error check_plan(const Program& program, const pte_format::ExecutionPlan& plan);

// The FlatBuffers verifier checks a vector's length field for 4-byte alignment but not its
// elements; 8-byte elements are read as such, so they must be checked as well.
inline bool is_aligned(const void* data, size_t alignment) {
  return reinterpret_cast<uintptr_t>(data) % alignment == 0;
}

}  // namespace kiln
