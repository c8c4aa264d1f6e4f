// Shared helpers of the indexing kernels: index dtypes, checked index reads, byte-width copies.
#pragma once

#include <cstdint>
#include <cstring>

#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// An integer index tensor's values, read as int64 whatever their width (Long or Int).
struct IndexReader {
  const void* data = nullptr;
  bool is_long = true;

  static IndexReader of(const Tensor& index) {
    return {index.const_data_ptr(), index.scalar_type() == ScalarType::Long};
  }
  int64_t operator[](int64_t i) const {
    return is_long ? static_cast<const int64_t*>(data)[i] : static_cast<const int32_t*>(data)[i];
  }
};

// True when `index` holds Long or Int values; otherwise fails with "<op>(): Expected dtype int32
// or int64 for <name>".
bool check_index_dtype(KernelRuntimeContext& ctx, const Tensor& index, const char* op,
                       const char* name);

// Checks 0 <= value < size (negative values first wrap by `size` when `wrap` is set) and stores
// the wrapped value; otherwise fails with "index <value> is out of bounds for dimension <dim>
// with size <size>".
inline bool check_index(KernelRuntimeContext& ctx, int64_t value, int64_t size, int64_t dim,
                        bool wrap, int64_t* wrapped) {
  const int64_t v = (wrap && value < 0) ? value + size : value;
  if (v < 0 || v >= size) {
    ctx.fail(
        Error::InvalidArgument, "index %lld is out of bounds for dimension %lld with size %lld",
        static_cast<long long>(value), static_cast<long long>(dim), static_cast<long long>(size));
    return false;
  }
  *wrapped = v;
  return true;
}

// Calls f(TypeTag-like pointer type) with an unsigned integer type as wide as one element
// (1, 2, 4 or 8 bytes), so data movement compiles once per width instead of once per dtype.
template <typename F>
inline void dispatch_by_width(size_t element_size, F&& f) {
  switch (element_size) {
    case 1:
      return f(static_cast<uint8_t*>(nullptr));
    case 2:
      return f(static_cast<uint16_t*>(nullptr));
    case 4:
      return f(static_cast<uint32_t*>(nullptr));
    default:
      return f(static_cast<uint64_t*>(nullptr));
  }
}

// Copies `count` blocks of `block` elements of width sizeof(U); short blocks copy element by
// element, where a memcpy call would cost more than the data.
template <typename U>
inline void copy_block(U* dst, const U* src, int64_t block) {
  if (block >= 16) {
    std::memcpy(dst, src, static_cast<size_t>(block) * sizeof(U));
  } else {
    for (int64_t i = 0; i < block; ++i) dst[i] = src[i];
  }
}

// Product of sizes[begin, end).
inline int64_t size_product(ArrayRef<SizesType> sizes, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= sizes[i];
  return n;
}

// Row-major strides (in elements) of a contiguous tensor of `sizes`, a 0-dim one seen as [1]
// (gather and scatter treat 0-dim tensors as 1-D); returns the rank used.
inline size_t nonempty_strides(ArrayRef<SizesType> sizes, int64_t* strides) {
  if (sizes.size() == 0) {
    strides[0] = 1;
    return 1;
  }
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= sizes[i];
  }
  return sizes.size();
}

// Walks every element of an index tensor of `sizes` (rank `rank`, a 0-dim one as [1]) in
// row-major order, calling fn(i, a_offset, b_offset) where the offsets follow strides `a` and `b`
// over the index coordinates (dim `skip` of `a` contributes nothing: the kernel adds the index
// there). Stops early when fn returns false.
template <typename Fn>
bool walk_index(ArrayRef<SizesType> sizes, size_t rank, const int64_t* a, const int64_t* b,
                size_t skip, Fn&& fn) {
  int64_t extent[kTensorDimensionLimit];
  for (size_t d = 0; d < rank; ++d) extent[d] = sizes.size() == 0 ? 1 : sizes[d];
  int64_t total = 1;
  for (size_t d = 0; d < rank; ++d) total *= extent[d];
  if (total == 0) return true;
  int64_t coord[kTensorDimensionLimit] = {};
  int64_t a_step[kTensorDimensionLimit];
  for (size_t d = 0; d < rank; ++d) a_step[d] = d == skip ? 0 : a[d];
  int64_t a_offset = 0;
  int64_t b_offset = 0;
  const size_t last = rank - 1;
  const int64_t row = extent[last];
  for (int64_t i = 0; i < total; i += row) {
    for (int64_t j = 0; j < row; ++j) {
      if (!fn(i + j, a_offset + j * a_step[last], b_offset + j * b[last])) return false;
    }
    for (size_t d = last; d-- > 0;) {
      if (++coord[d] < extent[d]) {
        a_offset += a_step[d];
        b_offset += b[d];
        break;
      }
      coord[d] = 0;
      a_offset -= a_step[d] * (extent[d] - 1);
      b_offset -= b[d] * (extent[d] - 1);
    }
  }
  return true;
}

}  // namespace kiln::portable
