// A tensor broadcast with a bool mask: the plan and count masked_select and masked_scatter share.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/portable/cpu/util/elementwise/broadcast.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

struct MaskedPlan {
  SizesType sizes[kTensorDimensionLimit];  // the broadcast shape
  size_t rank = 0;
  BroadcastPlan plan;    // input 0: self, input 1: the mask
  int64_t selected = 0;  // positions where the broadcast mask is true
};

// Plans `self` broadcast with `mask` (a Bool tensor, checked by the caller) and counts the true
// positions, reading mask elements as bytes (load_bool_byte). False, with ctx failed naming the
// shapes, when they do not broadcast.
bool plan_masked(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mask,
                 MaskedPlan* masked);

}  // namespace kiln::portable
