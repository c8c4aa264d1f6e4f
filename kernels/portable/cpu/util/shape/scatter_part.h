// The body select_scatter and slice_scatter share: a copy of self with one strided part of it
// replaced by src.
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// A strided part of a contiguous tensor: `ndim` dims of `sizes`, element strides `strides`,
// starting `offset` elements in.
struct TensorPart {
  int64_t ndim = 0;
  SizesType sizes[kTensorDimensionLimit];
  int64_t strides[kTensorDimensionLimit];
  int64_t offset = 0;
};

// out = self (resized to self's shape, self's dtype) with `part` of it overwritten by src,
// converted to self's dtype as torch's copy_ does. src (any dim order) must have exactly the
// part's shape. Returns `out` (after ctx.fail on bad input).
Tensor& scatter_part(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src,
                     const TensorPart& part, Tensor& out);

}  // namespace kiln::portable
