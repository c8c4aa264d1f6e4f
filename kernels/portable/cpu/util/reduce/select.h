// Max/min reductions (values and/or first indices) and their empty-dim checks: the shared body of
// amax, amin, max.dim, min.dim, max, min, argmax, argmin, any and all.
#pragma once

#include "kernels/portable/cpu/util/reduce/plan.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

struct SelectOptions {
  bool max = true;            // the largest value (else the smallest)
  bool nonzero = false;       // compare elements as 0/1 truth values (any, all)
  bool via_byte = false;      // with nonzero: cast elements to Byte first (any/all into a Byte out)
  Tensor* values = nullptr;   // gets the selected values, converted to its dtype (may be null)
  Tensor* indices = nullptr;  // Long: each selected value's position among its reduced elements
};

// Reduces contiguous `self` over `mask` into the outs in `options` (already resized). NaN is
// larger and smaller than everything (the first NaN wins); among equal values the first wins.
// An empty reduction gives the identity: -inf/+inf or the dtype's lowest/highest value (0/1 for
// nonzero), index 0.
void select_reduce(const Tensor& self, DimMask mask, const SelectOptions& options);

// ATen's refusal to take the max or min over an empty dim: false after ctx.fail when some dim in
// `mask` has size 0, naming `op` ("amax", "max", ...) the way ATen's message does.
bool check_nonempty_reduction(KernelRuntimeContext& ctx, const Tensor& self, DimMask mask,
                              bool all_dims, const char* op);

}  // namespace kiln::portable
