// Broadcasting: the broadcast shape of inputs, and a precomputed loop plan over the output.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/portable/cpu/util/common/parallel.h"
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

// One row of a plan: fn(state, input_offsets, out_offset, n).
using RowCallback = void (*)(const void* state, const int64_t* offsets, int64_t out_offset,
                             int64_t n);

// Calls fn(state, input_offsets, out_offset, n) for the rows, or parts of rows, that hold output
// elements [begin, end), in output order; offsets are in elements. No division per element: an
// odometer over the outer dims advances the offsets. Compiled once: each op's row function is
// reached through `fn`, so the odometer is not repeated in every op and dtype.
void for_each_row_range(const BroadcastPlan& plan, int64_t begin, int64_t end, RowCallback fn,
                        const void* state);

// for_each_row_range over the whole plan, split over ctx's thread pool (util/common/parallel.h) for
// large outputs. A chunk may start inside a row, at a multiple of 64 elements from the row's
// start, so vector loops see the same alignment as on one thread. fn must be safe to call from
// several threads at once.
void for_each_row_parallel(const KernelRuntimeContext& ctx, const BroadcastPlan& plan,
                           RowCallback fn, const void* state);

// A two-input plan's operands: base pointers and element sizes of a, b and out.
struct BinaryOperands {
  const void* a;
  size_t a_size;
  const void* b;
  size_t b_size;
  void* out;
  size_t out_size;
};

// One row of a two-input plan, as pointers and strides (0 or 1): fn(state, a_row, a_stride,
// b_row, b_stride, out_row, n).
using BinaryRowCallback = void (*)(const void* state, const void* a, int64_t a_stride,
                                   const void* b, int64_t b_stride, void* out, int64_t n);

// Rows no longer than this are tiled when an input repeats across them (below).
constexpr int64_t kShortRow = 64;

// for_each_row_parallel over a two-input plan, handing fn each row's pointers and strides. A plan
// [rows, L] with L <= kShortRow in which an input repeats one row ([R, 4] + [4]) or one value per
// row ([R, 4] + [R, 1]) runs k rows per call instead of one: such an input is read from a buffer
// of k rows (k copies of the row, or each value spread over its row), the others walk on in place,
// so a call covers k * L elements: with one call per 4-element row, the calls cost more than the
// arithmetic.
void for_each_binary_row(const KernelRuntimeContext& ctx, const BroadcastPlan& plan,
                         const BinaryOperands& operands, BinaryRowCallback fn, const void* state);

namespace detail {
template <typename RowFn>
void call_binary_row(const void* fn, const void* a, int64_t a_stride, const void* b,
                     int64_t b_stride, void* out, int64_t n) {
  (*static_cast<const RowFn*>(fn))(a, a_stride, b, b_stride, out, n);
}

template <typename RowFn>
void call_row(const void* fn, const int64_t* offsets, int64_t out_offset, int64_t n) {
  (*static_cast<const RowFn*>(fn))(offsets, out_offset, n);
}
}  // namespace detail

// Calls fn(input_offsets, out_offset, n) for each row of the plan, in output order.
template <typename RowFn>
void for_each_row(const BroadcastPlan& plan, const RowFn& fn) {
  for_each_row_range(plan, 0, plan.numel, &detail::call_row<RowFn>, &fn);
}

// for_each_row split over ctx's thread pool, as above.
template <typename RowFn>
void for_each_row_parallel(const KernelRuntimeContext& ctx, const BroadcastPlan& plan,
                           const RowFn& fn) {
  for_each_row_parallel(ctx, plan, &detail::call_row<RowFn>, &fn);
}

// for_each_binary_row with fn(a_row, a_stride, b_row, b_stride, out_row, n).
template <typename RowFn>
void for_each_binary_row(const KernelRuntimeContext& ctx, const BroadcastPlan& plan,
                         const BinaryOperands& operands, const RowFn& fn) {
  for_each_binary_row(ctx, plan, operands, &detail::call_binary_row<RowFn>, &fn);
}

}  // namespace kiln::portable
