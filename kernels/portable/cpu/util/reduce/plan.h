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

// Resizes out to the shape of reducing self over `mask`: reduced dims become 1 with keepdim, else
// vanish. False after ctx.fail.
bool resize_reduced(KernelRuntimeContext& ctx, const Tensor& self, DimMask mask, bool keepdim,
                    Tensor& out);

// Where each output's reduced elements lie in a contiguous input, for reductions that visit one
// output at a time. Outputs come in row-major order of the kept dims; an output's elements are
// `runs` of `run_size` elements spaced `run_stride` apart (stride 1 when the innermost dim is
// reduced), one run per combination of the outer reduced dims, in row-major order of the input.
struct ReduceLayout {
  int32_t kept_dim = 0;  // kept groups, outermost first
  SizesType kept_sizes[kTensorDimensionLimit];
  StridesType kept_strides[kTensorDimensionLimit];
  int32_t outer_dim = 0;  // reduced groups outside the innermost reduced group
  SizesType outer_sizes[kTensorDimensionLimit];
  StridesType outer_strides[kTensorDimensionLimit];
  int64_t run_size = 1;
  int64_t run_stride = 1;
  int64_t count = 1;    // reduced elements per output (0 when a reduced dim is empty)
  int64_t outputs = 1;  // number of outputs (0 when a kept dim is empty)
};
void make_reduce_layout(ArrayRef<SizesType> sizes, DimMask mask, ReduceLayout* layout);

// dst[i] = 1 where src[i * stride] (of dtype src_type) is nonzero, else 0: elements as truth
// values (NaN is nonzero), the way a cast to Bool reads them.
void load_row_nonzero(const void* src, ScalarType src_type, int64_t stride, int64_t n,
                      int64_t* dst);

// Calls fn(offset) for the index combinations of the dims numbered [first, last) in row-major
// order (dim == 0 has the single combination 0, at offset 0).
template <typename Fn>
void for_each_offset_range(const SizesType* sizes, const StridesType* strides, int32_t dim,
                           int64_t first, int64_t last, Fn&& fn) {
  if (first >= last) return;
  int64_t index[kTensorDimensionLimit];
  int64_t offset = 0;
  int64_t rest = first;
  for (int32_t d = dim - 1; d >= 0; --d) {
    index[d] = rest % sizes[d];
    rest /= sizes[d];
    offset += index[d] * strides[d];
  }
  for (int64_t k = first; k < last; ++k) {
    fn(offset);
    for (int32_t d = dim - 1; d >= 0; --d) {
      if (++index[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      index[d] = 0;
      offset -= strides[d] * (sizes[d] - 1);
    }
  }
}

// Calls fn(offset) for every index combination of the dims, in row-major order; once with 0
// when dim == 0. Every size must be at least 1.
template <typename Fn>
void for_each_offset(const SizesType* sizes, const StridesType* strides, int32_t dim, Fn&& fn) {
  int64_t combinations = 1;
  for (int32_t d = 0; d < dim; ++d) combinations *= sizes[d];
  for_each_offset_range(sizes, strides, dim, 0, combinations, fn);
}

}  // namespace kiln::portable

namespace kiln::portable {

// Calls fn(base) with the input offset of each output's first element, in output order.
template <typename Fn>
void for_each_output(const ReduceLayout& layout, Fn&& fn) {
  if (layout.outputs == 0) return;
  for_each_offset(layout.kept_sizes, layout.kept_strides, layout.kept_dim, fn);
}

// Calls fn(offset) with the input offset of each run of the output whose first element is at
// `base`, in the input's order (so a running count gives each element's position).
template <typename Fn>
void for_each_run(const ReduceLayout& layout, int64_t base, Fn&& fn) {
  if (layout.count == 0) return;
  for_each_offset(layout.outer_sizes, layout.outer_strides, layout.outer_dim,
                  [&](int64_t offset) { fn(base + offset); });
}

// Rows r .. r + 3 of `rows` input rows `stride` elements apart from x, for the column loops that
// combine four rows before they meet their output lanes (loaded and stored once per group, not
// per row). Rows past the last are `missing`, or the group's first row when that is null (for
// an idempotent combination).
template <typename T>
struct FourRows {
  const T* row[4];
};
template <typename T>
inline FourRows<T> four_rows(const T* x, int64_t r, int64_t rows, int64_t stride,
                             const T* missing) {
  FourRows<T> group;
  group.row[0] = x + r * stride;
  for (int k = 1; k < 4; ++k) {
    group.row[k] = r + k < rows         ? group.row[0] + k * stride
                   : missing != nullptr ? missing
                                        : group.row[0];
  }
  return group;
}

// For a layout whose innermost dim is kept (run_stride > 1), where neighbouring outputs read
// neighbouring inputs: calls fn(base, n) for each block of n <= `block` neighbouring outputs along
// that dim, in output order, `base` being the input offset of the block's first output.
template <typename Fn>
void for_each_output_block(const ReduceLayout& layout, int64_t block, Fn&& fn) {
  const int32_t outer_kept = layout.kept_dim - 1;
  const int64_t width = layout.kept_sizes[outer_kept];
  for_each_offset(layout.kept_sizes, layout.kept_strides, outer_kept, [&](int64_t base) {
    for (int64_t k = 0; k < width; k += block) fn(base + k, width - k < block ? width - k : block);
  });
}

}  // namespace kiln::portable
