// Broadcast shapes and loop plans.
#include "kernels/portable/cpu/util/broadcast.h"

#include "kernels/portable/cpu/util/checks.h"

namespace kiln::portable {

bool broadcast_shapes(ArrayRef<SizesType> a, ArrayRef<SizesType> b, SizesType* out_sizes,
                      size_t* out_dim) {
  const size_t dim = a.size() > b.size() ? a.size() : b.size();
  if (dim > kTensorDimensionLimit) return false;
  for (size_t i = 0; i < dim; ++i) {
    // i counts from the innermost dim; missing leading dims act as size 1.
    const SizesType sa = i < a.size() ? a[a.size() - 1 - i] : 1;
    const SizesType sb = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (sa != sb && sa != 1 && sb != 1) return false;
    out_sizes[dim - 1 - i] = sa == 1 ? sb : sa;
  }
  *out_dim = dim;
  return true;
}

bool resize_to_broadcast(KernelRuntimeContext& ctx, ArrayRef<SizesType> self,
                         ArrayRef<SizesType> other, Tensor& out) {
  SizesType sizes[kTensorDimensionLimit];
  size_t dim = 0;
  if (!broadcast_shapes(self, other, sizes, &dim)) {
    ctx.fail(Error::InvalidArgument,
             "self and other shapes %s and %s are not broadcastable: sizes must match or be 1 in "
             "each trailing dim",
             format_shape(self).text, format_shape(other).text);
    return false;
  }
  return resize_or_fail(ctx, out, {sizes, dim});
}

void make_broadcast_plan(ArrayRef<SizesType> out_sizes, const ArrayRef<SizesType>* inputs,
                         int num_inputs, BroadcastPlan* plan) {
  plan->num_inputs = num_inputs;
  plan->numel = compute_numel(out_sizes);
  // Element strides of each input per output dim, innermost first while walking.
  StridesType input_stride[kMaxPlanInputs];
  for (int i = 0; i < num_inputs; ++i) input_stride[i] = 1;

  // Build merged dims from the innermost outwards into the tail of the arrays, then shift.
  int merged = 0;
  SizesType sizes[kTensorDimensionLimit];
  StridesType strides[kMaxPlanInputs][kTensorDimensionLimit];
  const size_t out_dim = out_sizes.size();
  for (size_t k = 0; k < out_dim; ++k) {
    const size_t d = out_dim - 1 - k;
    const SizesType size = out_sizes[d];
    StridesType dim_strides[kMaxPlanInputs];
    for (int i = 0; i < num_inputs; ++i) {
      const ArrayRef<SizesType> in = inputs[i];
      const SizesType in_size = k < in.size() ? in[in.size() - 1 - k] : 1;
      dim_strides[i] = in_size == 1 ? 0 : input_stride[i];
      input_stride[i] *= in_size;
    }
    if (size == 1) continue;
    bool can_merge = merged > 0;
    for (int i = 0; i < num_inputs && can_merge; ++i) {
      // The new (outer) dim continues the previous one when its stride is that dim's extent.
      const int prev = merged - 1;
      can_merge = dim_strides[i] == strides[i][prev] * sizes[prev];
    }
    if (can_merge) {
      sizes[merged - 1] *= size;
      continue;
    }
    sizes[merged] = size;
    for (int i = 0; i < num_inputs; ++i) strides[i][merged] = dim_strides[i];
    ++merged;
  }
  if (merged == 0) {  // a single element
    sizes[0] = 1;
    for (int i = 0; i < num_inputs; ++i) strides[i][0] = 0;
    merged = 1;
  }
  // Reverse into outermost-first order.
  plan->dim = merged;
  for (int m = 0; m < merged; ++m) {
    plan->sizes[m] = sizes[merged - 1 - m];
    for (int i = 0; i < num_inputs; ++i) plan->strides[i][m] = strides[i][merged - 1 - m];
  }
}

void for_each_row_range(const BroadcastPlan& plan, int64_t begin, int64_t end, RowCallback fn,
                        const void* state) {
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
    fn(state, row_offsets, out_offset + start, stop - start);
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

void for_each_row_parallel(const KernelRuntimeContext& ctx, const BroadcastPlan& plan,
                           RowCallback fn, const void* state) {
  const int64_t row = plan.row_size();
  const auto boundary = [row](int64_t at) { return at - (at % row) % 64; };
  parallel_for(ctx, 0, plan.numel, kElementwiseGrain, [&](int64_t begin, int64_t end) {
    for_each_row_range(plan, boundary(begin), boundary(end), fn, state);
  });
}

}  // namespace kiln::portable
