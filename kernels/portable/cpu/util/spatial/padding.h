// Reflection and replication padding of the trailing 1, 2 or 3 dims (reflection_pad{1,2,3}d and
// replication_pad{1,2,3}d), with ATen's checks and index math.
#pragma once

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// How an output position outside the input finds its source element.
enum class PadMode {
  kReflection,   // mirrored about the edge element, which is not repeated
  kReplication,  // the nearest edge element
};

// Pads the last `spatial_dims` dims of self (rank spatial_dims + 1, or + 2 with a batch dim) by
// `padding` (a (left, right) pair per padded dim, last dim first; negative values crop) into out.
// `op` names the op in messages.
Tensor& pad_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef padding,
                int64_t spatial_dims, PadMode mode, const char* op, Tensor& out);

}  // namespace kiln::portable
