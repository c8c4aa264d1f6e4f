// Dim order: the permutation that lists dimensions from outermost to innermost in memory.
#pragma once

#include "runtime/core/error.h"
#include "runtime/core/tensor_impl.h"

namespace kiln {

// Writes 0, 1, ..., dim-1 (row-major order).
void fill_default_dim_order(Span<DimOrderType> dim_order);

// True when `dim_order` is 0, 1, ..., n-1.
bool is_default_dim_order(ArrayRef<DimOrderType> dim_order);

// True when `dim_order` is a permutation of 0..n-1.
bool is_valid_dim_order(ArrayRef<DimOrderType> dim_order);

// Writes the strides of a densely packed tensor with these sizes laid out in `dim_order`.
// Returns InvalidArgument when the arrays disagree in length or dim_order is not a permutation,
// or when the product of the sizes (a 0 counted as 1) passes int64; the strides written then are
// not usable.
Error dim_order_to_strides(ArrayRef<SizesType> sizes, ArrayRef<DimOrderType> dim_order,
                           Span<StridesType> strides);

}  // namespace kiln
