// Kiln's own checks of one execution plan, on top of the FlatBuffers verifier: every index, tag,
// size, offset and byte count the executor will later use without checking.
#pragma once

#include "runtime/core/error.h"

namespace kiln {

class Program;
namespace pte_format {
struct ExecutionPlan;
}

// InvalidProgram (or NotSupported for delegates and external data) with last_load_error()
// naming the method, the value or instruction and what is wrong.
Error check_plan(const Program& program, const pte_format::ExecutionPlan& plan);

}  // namespace kiln
