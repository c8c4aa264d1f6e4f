// Reduction plans: dim-list parsing, reduced shapes, and the loops a reduction walks.
#pragma once

#include <cstdint>
#include <optional>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Bit d is set when input dim d is reduced.
using DimMask = uint32_t;
static_assert(kTensorDimensionLimit <= 32, "DimMask holds one bit per dim");

// Parses a reduction's dim list for a tensor of rank `rank`: negative dims wrap, None or an
// empty list mean every dim, a repeated dim is an error. False after ctx.fail.
bool make_dim_mask(KernelRuntimeContext& ctx, std::optional<IntArrayRef> dims, int64_t rank,
                   DimMask* mask);

// Writes the shape of reducing `sizes` over `mask` into `out` (room for kTensorDimensionLimit):
// reduced dims become 1 with keepdim, else vanish. Returns the rank.
size_t reduced_shape(ArrayRef<SizesType> sizes, DimMask mask, bool keepdim, SizesType* out);

// The loops of a reduction over a contiguous input. Size-1 dims are dropped and neighbouring
// dims of the same kind merged. The innermost group (stride 1) is split off as the `row`: when it
// is reduced, each output sums whole contiguous rows; when it is kept, outputs are produced a
// run of `row_size` at a time, adding contiguous input runs.
struct ReducePlan {
  int32_t kept_dim = 0;  // kept groups outside the row
  SizesType kept_sizes[kTensorDimensionLimit];
  StridesType kept_strides[kTensorDimensionLimit];
  int32_t reduced_dim = 0;  // reduced groups outside the row
  SizesType reduced_sizes[kTensorDimensionLimit];
  StridesType reduced_strides[kTensorDimensionLimit];
  bool row_reduced = false;
  int64_t row_size = 1;
};
void make_reduce_plan(ArrayRef<SizesType> sizes, DimMask mask, ReducePlan* plan);

// Calls fn(offset) for every index combination of the dims, in row-major order; once with 0
// when dim == 0.
template <typename Fn>
void for_each_offset(const SizesType* sizes, const StridesType* strides, int32_t dim, Fn&& fn) {
  int64_t index[kTensorDimensionLimit] = {};
  int64_t offset = 0;
  while (true) {
    fn(offset);
    int32_t d = dim - 1;
    for (; d >= 0; --d) {
      if (++index[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      index[d] = 0;
      offset -= strides[d] * (sizes[d] - 1);
    }
    if (d < 0) return;
  }
}

}  // namespace kiln::portable
