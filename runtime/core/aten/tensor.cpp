// ATen mode: the dim order of an at::Tensor, derived from its strides.
#include "runtime/core/aten/tensor.h"

namespace kiln {

int64_t compute_numel(ArrayRef<SizesType> sizes) {
  int64_t numel = 1;
  for (SizesType s : sizes) numel *= s;
  return numel;
}

Error get_dim_order(const Tensor& tensor, Span<DimOrderType> dim_order) {
  const size_t dim = static_cast<size_t>(tensor.dim());
  if (dim > kTensorDimensionLimit || dim_order.size() != dim) return Error::InvalidArgument;
  const c10::IntArrayRef strides = tensor.strides();
  for (size_t i = 0; i < dim; ++i) dim_order[i] = static_cast<DimOrderType>(i);
  // Insertion sort by decreasing stride; stable, so equal strides keep dimension order.
  for (size_t i = 1; i < dim; ++i) {
    const DimOrderType d = dim_order[i];
    size_t j = i;
    while (j > 0 && strides[dim_order[j - 1]] < strides[d]) {
      dim_order[j] = dim_order[j - 1];
      --j;
    }
    dim_order[j] = d;
  }
  return Error::Ok;
}

}  // namespace kiln
