// Tensor: a cheap handle to a TensorImpl, with ATen-style accessors so kernels read alike.
#pragma once

#if KILN_ATEN_MODE
#include "runtime/core/aten/tensor.h"
#else
#include "runtime/core/tensor_impl.h"

namespace kiln {

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(TensorImpl* impl) : impl_(impl) {}

  TensorImpl* unsafeGetTensorImpl() const { return impl_; }
  bool defined() const { return impl_ != nullptr; }

  ScalarType scalar_type() const { return impl_->scalar_type(); }
  ScalarType dtype() const { return impl_->scalar_type(); }
  int64_t dim() const { return static_cast<int64_t>(impl_->dim()); }
  int64_t numel() const { return impl_->numel(); }
  size_t nbytes() const { return impl_->nbytes(); }
  size_t element_size() const { return impl_->element_size(); }
  ArrayRef<SizesType> sizes() const { return impl_->sizes(); }
  ArrayRef<StridesType> strides() const { return impl_->strides(); }
  ArrayRef<DimOrderType> dim_order() const { return impl_->dim_order(); }
  TensorShapeDynamism shape_dynamism() const { return impl_->shape_dynamism(); }
  // Size of dimension `d`; negative d counts from the end. d must be in range.
  SizesType size(int64_t d) const {
    return impl_->sizes()[static_cast<size_t>(d < 0 ? d + dim() : d)];
  }

  template <typename T = void>
  const T* const_data_ptr() const {
    return static_cast<const T*>(impl_->data());
  }
  template <typename T = void>
  T* mutable_data_ptr() const {
    return static_cast<T*>(impl_->mutable_data());
  }

 private:
  TensorImpl* impl_ = nullptr;
};

}  // namespace kiln
#endif
