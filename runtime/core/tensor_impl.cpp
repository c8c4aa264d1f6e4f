// TensorImpl construction and the resize rules for out tensors.
#include "runtime/core/tensor_impl.h"

#include <cstdint>

#include "runtime/core/dim_order.h"

namespace kiln {

int64_t compute_numel(ArrayRef<SizesType> sizes) {
  int64_t numel = 1;
  for (SizesType s : sizes) numel *= s;
  return numel;
}

TensorImpl::TensorImpl(ScalarType dtype, size_t dim, SizesType* sizes, void* data,
                       DimOrderType* dim_order, StridesType* strides, TensorShapeDynamism dynamism)
    : dtype_(dtype),
      dim_(dim),
      numel_(compute_numel({sizes, dim})),
      sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      data_(data),
      capacity_bytes_(static_cast<size_t>(numel_) * kiln::element_size(dtype)),
      dynamism_(dynamism) {}

void TensorImpl::set_metadata_arrays(size_t dim, SizesType* sizes, DimOrderType* dim_order,
                                     StridesType* strides) {
  dim_ = dim;
  sizes_ = sizes;
  dim_order_ = dim_order;
  strides_ = strides;
  numel_ = compute_numel({sizes_, dim_});
}

void TensorImpl::set_sizes_same_rank(ArrayRef<SizesType> new_sizes) {
  for (size_t i = 0; i < dim_; ++i) sizes_[i] = new_sizes[i];
  numel_ = compute_numel(new_sizes);
  // Cannot fail: rank unchanged and the existing dim order is valid.
  (void)dim_order_to_strides({sizes_, dim_}, {dim_order_, dim_}, {strides_, dim_});
}

Error TensorImpl::resize(ArrayRef<SizesType> new_sizes) {
  if (sizes().equals(new_sizes)) return Error::Ok;
  for (SizesType s : new_sizes) {
    if (s < 0) return Error::InvalidArgument;
  }
  switch (dynamism_) {
    case TensorShapeDynamism::Static:
      return Error::NotSupported;
    case TensorShapeDynamism::DynamicUnbound:
      if (resizer_ != nullptr) return resizer_(*this, new_sizes, resizer_user_);
      break;
    case TensorShapeDynamism::DynamicBound:
      break;
  }
  if (new_sizes.size() != dim_) return Error::NotSupported;
  // Kernels compute sizes from their arguments: a shape whose strides (the product of its sizes,
  // a 0 counted as 1) or bytes overflow cannot fit, and must not be multiplied out.
  const size_t element = element_size();
  const uint64_t limit = static_cast<uint64_t>(INT64_MAX) / (element > 0 ? element : 1);
  uint64_t span = 1;
  bool empty = false;
  for (SizesType s : new_sizes) {
    if (s > 1 && span > limit / static_cast<uint64_t>(s)) return Error::NotSupported;
    span *= s > 1 ? static_cast<uint64_t>(s) : 1;
    empty = empty || s == 0;
  }
  const size_t needed = empty ? 0 : static_cast<size_t>(span) * element;
  if (needed > capacity_bytes_) return Error::NotSupported;
  set_sizes_same_rank(new_sizes);
  return Error::Ok;
}

}  // namespace kiln
