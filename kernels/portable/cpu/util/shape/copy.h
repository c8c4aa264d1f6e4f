// Layout copies for the shape kernels: strided views copied as bytes, dtype-converting rows, fills.
//
// Copies move elements as 1-, 2-, 4- or 8-byte words, so one loop serves every dtype of that
// size; only dtype conversion looks at the element type.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/scalar.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Dims a CopyView holds: twice a tensor's, so repeat can split every dim into (copy, dim).
constexpr int64_t kCopyViewDims = 2 * kTensorDimensionLimit;

// A view of up to kCopyViewDims dims: sizes plus destination and source strides, in elements (a
// stride may be 0 to repeat or negative to reverse).
struct CopyView {
  int64_t ndim = 0;
  int64_t sizes[kCopyViewDims];
  int64_t dst_strides[kCopyViewDims];
  int64_t src_strides[kCopyViewDims];

  // Appends a dim.
  void push(int64_t size, int64_t dst_stride, int64_t src_stride) {
    sizes[ndim] = size;
    dst_strides[ndim] = dst_stride;
    src_strides[ndim] = src_stride;
    ++ndim;
  }
};

// Copies every element of `view`: dst[i . dst_strides] = src[i . src_strides]. `dst` and `src`
// point at the view's first element and must not overlap. Contiguous runs become memcpy; a
// transposing view runs a tiled copy. Large views are split over ctx's threads along their
// outermost dim (the same bytes, whatever the split).
void copy_view(const KernelRuntimeContext& ctx, void* dst, const void* src, const CopyView& view,
               size_t element_size);

// Like copy_view, converting each element from src_type to dst_type as torch's copy_ does
// (copy_view itself when the dtypes are equal). Rows the destination walks contiguously are
// written directly; order the view's dims by the destination's dim order to get them.
void convert_copy_view(const KernelRuntimeContext& ctx, void* dst, ScalarType dst_type,
                       const void* src, ScalarType src_type, const CopyView& view);

// The view that writes every element of `dst` (any dim order) from a source whose dim d has
// element stride src_strides[d] (0 broadcasts): its dims follow dst's dim order, so dst's
// innermost dim is walked contiguously.
void view_in_dim_order(const Tensor& dst, const int64_t* src_strides, CopyView* view);

// Contiguous element strides of `sizes` (rank `ndim`) into `strides`.
void contiguous_strides(ArrayRef<SizesType> sizes, int64_t* strides);

// dst[i] = src[i] converted from src_type to dst_type as torch's copy_ does, for i < n (both
// contiguous, supported dtypes). Equal dtypes are a memcpy.
void convert_copy(void* dst, ScalarType dst_type, const void* src, ScalarType src_type, int64_t n);

// Writes the `element_size` bytes at `value` into each of dst[0, n).
void fill_elements(void* dst, const void* value, size_t element_size, int64_t n);

// Converts `scalar` to one element of dtype `type` at `dst` (bool/int/double as a tensor of that
// dtype holds it).
void scalar_to_element(const Scalar& scalar, ScalarType type, void* dst);

// out's bytes = self's (out already has self's dtype and element count); nothing when out is
// self, and an overlap is fine. Large copies are split over ctx's threads.
void copy_bytes(const KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);

// Whether the bytes of a and b overlap (an in-place op must not read what it writes).
bool tensors_overlap(const Tensor& a, const Tensor& b);

// The common prologue of a copy kernel: self and out use the default dim order, out has self's
// dtype, and out is resized to `sizes`. False after ctx.fail.
bool prepare_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out,
                      ArrayRef<SizesType> sizes);

// Copies self (contiguous) into out (contiguous, already sized) as the view with `sizes` and
// source element strides `src_strides` (rank `ndim`) describes.
void copy_strided_to_out(const KernelRuntimeContext& ctx, const Tensor& self, const int64_t* sizes,
                         const int64_t* src_strides, int64_t ndim, const int64_t src_offset,
                         Tensor& out);

}  // namespace kiln::portable
