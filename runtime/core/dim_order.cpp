// Dim order helpers: validity, defaults, and the strides a dim order implies.
#include "runtime/core/dim_order.h"

namespace kiln {

void fill_default_dim_order(Span<DimOrderType> dim_order) {
  for (size_t i = 0; i < dim_order.size(); ++i) {
    dim_order[i] = static_cast<DimOrderType>(i);
  }
}

bool is_default_dim_order(ArrayRef<DimOrderType> dim_order) {
  for (size_t i = 0; i < dim_order.size(); ++i) {
    if (dim_order[i] != i) return false;
  }
  return true;
}

bool is_valid_dim_order(ArrayRef<DimOrderType> dim_order) {
  if (dim_order.size() > kTensorDimensionLimit) return false;
  bool seen[kTensorDimensionLimit] = {};
  for (DimOrderType d : dim_order) {
    if (d >= dim_order.size() || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

Error dim_order_to_strides(ArrayRef<SizesType> sizes, ArrayRef<DimOrderType> dim_order,
                           Span<StridesType> strides) {
  if (sizes.size() != dim_order.size() || strides.size() != sizes.size() ||
      !is_valid_dim_order(dim_order)) {
    return Error::InvalidArgument;
  }
  StridesType stride = 1;
  bool overflow = false;
  for (size_t i = dim_order.size(); i > 0; --i) {
    const DimOrderType d = dim_order[i - 1];
    strides[d] = stride;
    // Size-0 and size-1 dims still advance by at least one element, as ATen does. So a tensor
    // with no elements can still have sizes whose product passes int64 (torch makes them with
    // expand): an error, as in ATen, and never a signed overflow.
    overflow |= __builtin_mul_overflow(stride, sizes[d] > 1 ? sizes[d] : 1, &stride);
  }
  return overflow ? Error::InvalidArgument : Error::Ok;
}

}  // namespace kiln
