// TensorImpl: the metadata of a tensor view (dtype, shape, dim order, data); owns nothing.
#pragma once

#if KILN_ATEN_MODE
#include "runtime/core/aten/tensor_impl.h"
#else
#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor_types.h"

namespace kiln {

class TensorImpl;

// Called to give `impl` the shape `sizes`; it must update the impl's data and metadata through
// TensorImpl::set_storage / set_shape. Used only for DynamicUnbound tensors.
using TensorResizer = Error (*)(TensorImpl& impl, ArrayRef<SizesType> sizes, void* user);

class TensorImpl {
 public:
  // `sizes`, `dim_order` and `strides` must hold `dim` entries and outlive the impl. `strides`
  // must be the contiguous strides for `dim_order` (see dim_order.h); `data` may be null when
  // numel is 0. capacity_bytes defaults to the initial nbytes.
  TensorImpl(ScalarType dtype, size_t dim, SizesType* sizes, void* data, DimOrderType* dim_order,
             StridesType* strides, TensorShapeDynamism dynamism = TensorShapeDynamism::Static);

  ScalarType scalar_type() const { return dtype_; }
  size_t dim() const { return dim_; }
  int64_t numel() const { return numel_; }
  size_t element_size() const { return kiln::element_size(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel_) * element_size(); }
  ArrayRef<SizesType> sizes() const { return {sizes_, dim_}; }
  ArrayRef<StridesType> strides() const { return {strides_, dim_}; }
  ArrayRef<DimOrderType> dim_order() const { return {dim_order_, dim_}; }
  TensorShapeDynamism shape_dynamism() const { return dynamism_; }
  size_t capacity_bytes() const { return capacity_bytes_; }
  void* mutable_data() const { return data_; }
  const void* data() const { return data_; }

  void set_capacity_bytes(size_t bytes) { capacity_bytes_ = bytes; }
  void set_resizer(TensorResizer resizer, void* user) {
    resizer_ = resizer;
    resizer_user_ = user;
  }
  // For resizers: point at new storage and metadata arrays (rank may change).
  void set_storage(void* data, size_t capacity_bytes) {
    data_ = data;
    capacity_bytes_ = capacity_bytes;
  }
  void set_metadata_arrays(size_t dim, SizesType* sizes, DimOrderType* dim_order,
                           StridesType* strides);

  // Gives the tensor the shape `new_sizes` under its dynamism rules: NotSupported when the rules
  // forbid it, InvalidArgument for a negative size; the tensor is unchanged then. Callers that
  // report to a user use resize_or_fail (runtime/kernel), which explains the refusal.
  Error resize(ArrayRef<SizesType> new_sizes);

 private:
  // Sets sizes in place (same rank) and recomputes strides and numel.
  void set_sizes_same_rank(ArrayRef<SizesType> new_sizes);

  ScalarType dtype_;
  size_t dim_;
  int64_t numel_;
  SizesType* sizes_;
  DimOrderType* dim_order_;
  StridesType* strides_;
  void* data_;
  size_t capacity_bytes_;
  TensorShapeDynamism dynamism_;
  TensorResizer resizer_ = nullptr;
  void* resizer_user_ = nullptr;
};

}  // namespace kiln
#endif
