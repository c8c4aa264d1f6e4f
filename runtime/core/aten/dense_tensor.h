// ATen mode's DenseTensor<Dim>: an at::Tensor over caller-owned memory (at::from_blob), with the
// same constructor and accessors as lean mode. Included by dense_tensor.h.
#pragma once

#include <ATen/ops/from_blob.h>

#include <array>

#include "runtime/core/tensor.h"

namespace kiln {

template <size_t Dim>
class DenseTensor {
  static_assert(Dim <= kTensorDimensionLimit, "too many dimensions");

 public:
  // `data` (not owned) must hold the product of `sizes` elements of `dtype`. The storage cannot
  // grow, so a kernel may give the tensor another shape only when it fits in that memory;
  // `dynamism` is accepted for source compatibility with lean mode.
  DenseTensor(ScalarType dtype, const std::array<SizesType, Dim>& sizes, void* data,
              TensorShapeDynamism /*dynamism*/ = TensorShapeDynamism::Static)
      : tensor_(at::from_blob(data, c10::IntArrayRef(sizes.data(), Dim),
                              at::TensorOptions().dtype(dtype))) {}
  DenseTensor(const DenseTensor&) = delete;
  DenseTensor& operator=(const DenseTensor&) = delete;

  Tensor tensor() { return tensor_; }
  TensorImpl& impl() { return *tensor_.unsafeGetTensorImpl(); }

 private:
  Tensor tensor_;
};

}  // namespace kiln
