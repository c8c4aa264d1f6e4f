// Reduction dim lists, shapes and plans.
#include "kernels/portable/cpu/util/reduce.h"

#include "kernels/portable/cpu/util/checks.h"

namespace kiln::portable {

bool make_dim_mask(KernelRuntimeContext& ctx, std::optional<IntArrayRef> dims, int64_t rank,
                   DimMask* mask) {
  *mask = 0;
  if (!dims.has_value() || dims->empty()) {
    for (int64_t d = 0; d < rank; ++d) *mask |= DimMask{1} << d;
    return true;
  }
  for (int64_t dim : *dims) {
    int64_t wrapped = 0;
    if (!wrap_dim(ctx, dim, rank, &wrapped)) return false;
    const DimMask bit = DimMask{1} << wrapped;
    KILN_KERNEL_CHECK_MSG(ctx, (*mask & bit) == 0, InvalidArgument, false,
                          "dim %lld appears multiple times in the list of dims; list each dim "
                          "once",
                          static_cast<long long>(wrapped));
    *mask |= bit;
  }
  // A 0-dim tensor accepts dim 0 or -1 but has no dim to reduce.
  if (rank == 0) *mask = 0;
  return true;
}

size_t reduced_shape(ArrayRef<SizesType> sizes, DimMask mask, bool keepdim, SizesType* out) {
  size_t dim = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if ((mask >> d) & 1) {
      if (keepdim) out[dim++] = 1;
    } else {
      out[dim++] = sizes[d];
    }
  }
  return dim;
}

void make_reduce_plan(ArrayRef<SizesType> sizes, DimMask mask, ReducePlan* plan) {
  // Merge dims from the innermost outwards into (size, stride, reduced) groups.
  SizesType group_size[kTensorDimensionLimit];
  StridesType group_stride[kTensorDimensionLimit];
  bool group_reduced[kTensorDimensionLimit];
  int32_t groups = 0;
  StridesType stride = 1;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const size_t d = sizes.size() - 1 - k;
    const SizesType size = sizes[d];
    const bool reduced = ((mask >> d) & 1) != 0;
    if (size != 1) {
      if (groups > 0 && group_reduced[groups - 1] == reduced) {
        group_size[groups - 1] *= size;
      } else {
        group_size[groups] = size;
        group_stride[groups] = stride;
        group_reduced[groups] = reduced;
        ++groups;
      }
    }
    stride *= size;
  }
  plan->kept_dim = 0;
  plan->reduced_dim = 0;
  plan->row_reduced = groups > 0 && group_reduced[0];
  plan->row_size = groups > 0 ? group_size[0] : 1;
  // Groups 1.. are outside the row; list them outermost first.
  for (int32_t g = groups - 1; g >= 1; --g) {
    if (group_reduced[g]) {
      plan->reduced_sizes[plan->reduced_dim] = group_size[g];
      plan->reduced_strides[plan->reduced_dim++] = group_stride[g];
    } else {
      plan->kept_sizes[plan->kept_dim] = group_size[g];
      plan->kept_strides[plan->kept_dim++] = group_stride[g];
    }
  }
}

}  // namespace kiln::portable
