// Sorting helpers of sort and topk: ATen's value order (NaN largest) and strided index rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "runtime/core/half.h"
#include "runtime/core/tensor.h"

namespace kiln::portable {

// The type a T element compares as: float for Half and BFloat16, T otherwise.
template <typename T>
using sort_key_t =
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

// a < b in ATen's sort order, where NaN is larger than every number (and equal to NaN).
template <typename K>
inline bool key_less(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) {
    return (a < b) || (b != b && a == a);
  } else {
    return a < b;
  }
}

// Orders element positions of one row (elements at data[i * stride]) ascending or descending,
// ties broken by position so every sort is stable and every top-k deterministic.
template <typename T>
struct PositionOrder {
  const T* data;
  int64_t stride;
  bool descending;

  bool operator()(int64_t i, int64_t j) const {
    const sort_key_t<T> a = static_cast<sort_key_t<T>>(data[i * stride]);
    const sort_key_t<T> b = static_cast<sort_key_t<T>>(data[j * stride]);
    if (descending) {
      if (key_less(b, a)) return true;
      if (key_less(a, b)) return false;
    } else {
      if (key_less(a, b)) return true;
      if (key_less(b, a)) return false;
    }
    return i < j;
  }
};

// A random-access iterator over every `stride`-th element, so std::sort and the heap algorithms
// can work on a row of an out tensor that is not the innermost dim.
template <typename T>
struct StridedIterator {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = T*;
  using reference = T&;

  T* ptr;
  difference_type stride;

  reference operator*() const { return *ptr; }
  reference operator[](difference_type n) const { return ptr[n * stride]; }
  StridedIterator& operator++() { return ptr += stride, *this; }
  StridedIterator& operator--() { return ptr -= stride, *this; }
  StridedIterator operator++(int) {
    StridedIterator old = *this;
    return ptr += stride, old;
  }
  StridedIterator operator--(int) {
    StridedIterator old = *this;
    return ptr -= stride, old;
  }
  StridedIterator& operator+=(difference_type n) { return ptr += n * stride, *this; }
  StridedIterator& operator-=(difference_type n) { return ptr -= n * stride, *this; }
  StridedIterator operator+(difference_type n) const { return {ptr + n * stride, stride}; }
  StridedIterator operator-(difference_type n) const { return {ptr - n * stride, stride}; }
  friend StridedIterator operator+(difference_type n, StridedIterator it) { return it + n; }
  difference_type operator-(const StridedIterator& o) const { return (ptr - o.ptr) / stride; }
  bool operator==(const StridedIterator& o) const { return ptr == o.ptr; }
  bool operator!=(const StridedIterator& o) const { return ptr != o.ptr; }
  bool operator<(const StridedIterator& o) const { return ptr < o.ptr; }
  bool operator>(const StridedIterator& o) const { return ptr > o.ptr; }
  bool operator<=(const StridedIterator& o) const { return ptr <= o.ptr; }
  bool operator>=(const StridedIterator& o) const { return ptr >= o.ptr; }
};

// Calls row(src, stride, n, positions, dst) for each row of self along dim d: src (a const T*,
// T self's element type) points at the row's n elements, `stride` apart; positions (a
// StridedIterator<int64_t> into indices) and dst (a T* into values) at the row's `kept` out
// slots, with the same stride. values and indices are sized with `kept` along d.
template <typename F>
void for_each_dim_row(const Tensor& self, int64_t d, int64_t kept, Tensor& values, Tensor& indices,
                      F&& row) {
  const ArrayRef<SizesType> sizes = self.sizes();
  const int64_t n = self.dim() > 0 ? sizes[d] : 1;
  const int64_t outer = self.dim() > 0 ? size_product(sizes, 0, d) : 1;
  const int64_t inner = self.dim() > 0 ? size_product(sizes, d + 1, sizes.size()) : 1;
  int64_t* positions = indices.mutable_data_ptr<int64_t>();
  dispatch_element_type(self.scalar_type(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* src = self.const_data_ptr<T>();
    T* dst = values.mutable_data_ptr<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < inner; ++j) {
        const int64_t out_base = o * kept * inner + j;
        row(src + o * n * inner + j, inner, n,
            StridedIterator<int64_t>{positions + out_base, inner}, dst + out_base);
      }
    }
  });
}

}  // namespace kiln::portable
