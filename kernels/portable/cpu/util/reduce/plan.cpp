// Reduction dim lists, shapes and plans.
#include "kernels/portable/cpu/util/reduce/plan.h"

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/vec/convert.h"

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

bool resize_reduced(KernelRuntimeContext& ctx, const Tensor& self, DimMask mask, bool keepdim,
                    Tensor& out) {
  const ArrayRef<SizesType> sizes = self.sizes();
  SizesType shape[kTensorDimensionLimit];
  size_t dim = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if ((mask >> d) & 1) {
      if (keepdim) shape[dim++] = 1;
    } else {
      shape[dim++] = sizes[d];
    }
  }
  return resize_or_fail(ctx, out, {shape, dim});
}

void make_reduce_layout(ArrayRef<SizesType> sizes, DimMask mask, ReduceLayout* layout) {
  // Group neighbouring dims of the same kind, innermost first, skipping size-1 dims.
  SizesType group_size[kTensorDimensionLimit];
  StridesType group_stride[kTensorDimensionLimit];
  bool group_reduced[kTensorDimensionLimit];
  int32_t groups = 0;
  StridesType stride = 1;
  layout->count = 1;
  layout->outputs = 1;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const size_t d = sizes.size() - 1 - k;
    const SizesType size = sizes[d];
    const bool reduced = ((mask >> d) & 1) != 0;
    (reduced ? layout->count : layout->outputs) *= size;
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
  layout->kept_dim = 0;
  layout->outer_dim = 0;
  layout->run_size = 1;
  layout->run_stride = 1;
  int32_t innermost_reduced = -1;
  for (int32_t g = 0; g < groups; ++g) {
    if (group_reduced[g]) {
      innermost_reduced = g;
      break;
    }
  }
  if (innermost_reduced >= 0) {
    layout->run_size = group_size[innermost_reduced];
    layout->run_stride = group_stride[innermost_reduced];
  }
  for (int32_t g = groups - 1; g >= 0; --g) {
    if (!group_reduced[g]) {
      layout->kept_sizes[layout->kept_dim] = group_size[g];
      layout->kept_strides[layout->kept_dim++] = group_stride[g];
    } else if (g != innermost_reduced) {
      layout->outer_sizes[layout->outer_dim] = group_size[g];
      layout->outer_strides[layout->outer_dim++] = group_stride[g];
    }
  }
}

namespace {

template <typename T>
void nonzero_typed(const T* src, int64_t stride, int64_t n, int64_t* dst) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      dst[i] = load_bool_byte(&src[i * stride]) ? 1 : 0;
    } else {
      dst[i] = convert_value<bool>(src[i * stride]) ? 1 : 0;
    }
  }
}

}  // namespace

void load_row_nonzero(const void* src, ScalarType src_type, int64_t stride, int64_t n,
                      int64_t* dst) {
#define KILN_NONZERO_CASE(cpp, name)                             \
  case ScalarType::name:                                         \
    nonzero_typed(static_cast<const cpp*>(src), stride, n, dst); \
    return;
  switch (src_type) {
    KILN_FORALL_SCALAR_TYPES(KILN_NONZERO_CASE)
    default:
      return;
  }
#undef KILN_NONZERO_CASE
}

}  // namespace kiln::portable
