// Constant folding and fusion at load (docs/programs.md, "Constant folding at load" and "Fusion
// at load"): the part of Method::load that runs kernels, once every check of the program passed.
#pragma once

#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

namespace kiln {

class ThreadPool;

// Folds the calls on constants of `method` (with `fold`) into memory.folded, and (with `fuse`)
// runs dequantize -> convolution / linear -> quantize chains as int8 calls and fuses batch norms
// and activations into the calls before them, on one analysis of `plan`;
// folding runs its kernels on `pool`. Memory for the analysis that cannot be had folds nothing
// and is counted in the method's FoldReport; a kernel failing on constants fails the load.
Error optimize_at_load(Method& method, const pte_format::ExecutionPlan& plan,
                       const MethodMemory& memory, ThreadPool* pool, bool fold, bool fuse);

}  // namespace kiln
