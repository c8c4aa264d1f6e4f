// DenseTensor<Dim>: holds the metadata of a row-major tensor over caller-owned memory, so user
// code can make a Tensor in one line. Not copyable: the impl points into its own arrays.
#pragma once

#if KILN_ATEN_MODE
#include "runtime/core/aten/dense_tensor.h"
#else
#include <array>

#include "runtime/core/dim_order.h"
#include "runtime/core/tensor.h"

namespace kiln {

template <size_t Dim>
class DenseTensor {
  static_assert(Dim <= kTensorDimensionLimit, "too many dimensions");

 public:
  // `data` (not owned) must hold the product of `sizes` elements of `dtype`.
  DenseTensor(ScalarType dtype, const std::array<SizesType, Dim>& sizes, void* data,
              TensorShapeDynamism dynamism = TensorShapeDynamism::Static)
      : sizes_(sizes),
        impl_(dtype, Dim, sizes_.data(), data, dim_order_.data(), strides_.data(), dynamism) {
    fill_default_dim_order({dim_order_.data(), Dim});
    (void)dim_order_to_strides({sizes_.data(), Dim}, {dim_order_.data(), Dim},
                               {strides_.data(), Dim});
  }
  DenseTensor(const DenseTensor&) = delete;
  DenseTensor& operator=(const DenseTensor&) = delete;

  Tensor tensor() { return Tensor(&impl_); }
  TensorImpl& impl() { return impl_; }

 private:
  std::array<SizesType, Dim> sizes_;
  std::array<DimOrderType, Dim> dim_order_{};
  std::array<StridesType, Dim> strides_{};
  TensorImpl impl_;
};

}  // namespace kiln
#endif
