// Broadcasting: the broadcast shape of inputs, and a precomputed loop plan over the output.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/util/parallel.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Inputs an elementwise plan can take (binary ops today, ternary ones such as `where` later).
constexpr int kMaxPlanInputs = 3;

// Writes the broadcast of shapes a and b (torch rules: align right, sizes equal or 1) into
// `out_sizes` (room for kTensorDimensionLimit) and its rank into `out_dim`. Returns false when the
// shapes do not broadcast.
bool broadcast_shapes(ArrayRef<SizesType> a, ArrayRef<SizesType> b, SizesType* out_sizes,
                      size_t* out_dim);

// Resizes `out` to the broadcast of self's and other's shapes. On failure it has reported
// "self and other shapes [2, 3] and [4] are not broadcastable" (or the resize refusal) through
// ctx and returns false.
bool resize_to_broadcast(KernelRuntimeContext& ctx, ArrayRef<SizesType> self,
                         ArrayRef<SizesType> other, Tensor& out);

// A loop nest over a contiguous output whose inputs are contiguous tensors broadcast to it.
// Output dims of size 1 are dropped and neighbouring dims that every operand walks contiguously
// are merged, so same-shape inputs become one flat loop and a row broadcast becomes two loops.
// The innermost dim is the `row`: every input's stride there is 0 (broadcast) or 1.
struct BroadcastPlan {
  int32_t dim = 0;  // >= 1
  int32_t num_inputs = 0;
  int64_t numel = 0;
  SizesType sizes[kTensorDimensionLimit];
  StridesType strides[kMaxPlanInputs][kTensorDimensionLimit];  // in elements, 0 where broadcast

  int64_t row_size() const { return sizes[dim - 1]; }
  StridesType row_stride(int input) const { return strides[input][dim - 1]; }
};

// Plans writing an output of shape `out_sizes` from inputs of shapes `inputs` (each broadcastable
// to it; a 0-dim input broadcasts everywhere).
void make_broadcast_plan(ArrayRef<SizesType> out_sizes, const ArrayRef<SizesType>* inputs,
                         int num_inputs, BroadcastPlan* plan);

// Calls fn(input_offsets, out_offset, n) for the rows, or parts of rows, that hold output
// elements [begin, end), in output order; offsets are in elements. No division per element: an
// odometer over the outer dims advances the offsets.
template <typename RowFn>
void for_each_row_range(const BroadcastPlan& plan, int64_t begin, int64_t end, RowFn&& fn) {
  if (begin >= end) return;
  const int64_t row = plan.row_size();
  const int outer = plan.dim - 1;
  int64_t offsets[kMaxPlanInputs] = {};
  int64_t index[kTensorDimensionLimit] = {};
  int64_t row_number = begin / row;
  int64_t start = begin - row_number * row;  // where the first row starts being written
  for (int d = outer - 1; d >= 0; --d) {
    index[d] = row_number % plan.sizes[d];
    row_number /= plan.sizes[d];
    for (int i = 0; i < plan.num_inputs; ++i) offsets[i] += index[d] * plan.strides[i][d];
  }
  for (int64_t out_offset = begin - start; out_offset < end; out_offset += row) {
    const int64_t stop = end - out_offset < row ? end - out_offset : row;
    int64_t row_offsets[kMaxPlanInputs];
    for (int i = 0; i < plan.num_inputs; ++i)
      row_offsets[i] = offsets[i] + start * plan.row_stride(i);
    fn(static_cast<const int64_t*>(row_offsets), out_offset + start, stop - start);
    start = 0;
    for (int d = outer - 1; d >= 0; --d) {
      if (++index[d] < plan.sizes[d]) {
        for (int i = 0; i < plan.num_inputs; ++i) offsets[i] += plan.strides[i][d];
        break;
      }
      index[d] = 0;
      for (int i = 0; i < plan.num_inputs; ++i) {
        offsets[i] -= plan.strides[i][d] * (plan.sizes[d] - 1);
      }
    }
  }
}

// Calls fn(input_offsets, out_offset, n) for each row of the plan, in output order.
template <typename RowFn>
void for_each_row(const BroadcastPlan& plan, RowFn&& fn) {
  for_each_row_range(plan, 0, plan.numel, fn);
}

// for_each_row split over ctx's thread pool (util/parallel.h) for large outputs. A chunk may
// start inside a row, at a multiple of 64 elements from the row's start, so vector loops see the
// same alignment as on one thread. fn must be safe to call from several threads at once.
template <typename RowFn>
void for_each_row_parallel(const KernelRuntimeContext& ctx, const BroadcastPlan& plan,
                           const RowFn& fn) {
  const int64_t row = plan.row_size();
  const auto boundary = [row](int64_t at) { return at - (at % row) % 64; };
  parallel_for(ctx, 0, plan.numel, kElementwiseGrain, [&](int64_t begin, int64_t end) {
    for_each_row_range(plan, boundary(begin), boundary(end), fn);
  });
}

}  // namespace kiln::portable
