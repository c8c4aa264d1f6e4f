// Short copies for the convolutions' row builders (depthwise strips, im2col rows): inline, in
// whole vectors, for the rows of a few elements that calls to memcpy would cost more than.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/reduce/row_loops.h"

namespace kiln::portable {

// Copies and zeroing inline, in vectors of kBytes and then in halves of one (sizes are whole
// elements, multiples of 4 bytes): a convolution's rows are short (a 7x7 plane's are 9
// elements), and calls to memcpy and memset for their pieces cost more than the copies.
template <int kChunk>
KILN_ALWAYS_INLINE void copy_tail(char* dst, const char* src, size_t bytes) {
  if constexpr (kChunk >= 4) {
    if (bytes & kChunk) {
      std::memcpy(dst, src, kChunk);
      dst += kChunk;
      src += kChunk;
    }
    copy_tail<kChunk / 2>(dst, src, bytes);
  }
}

template <int kBytes, typename T>
KILN_ALWAYS_INLINE void copy_elements(T* dst_elements, const T* src_elements, int64_t n) {
  auto* dst = reinterpret_cast<char*>(dst_elements);
  const auto* src = reinterpret_cast<const char*>(src_elements);
  size_t bytes = static_cast<size_t>(n) * sizeof(T);
  for (; bytes >= kBytes; bytes -= kBytes, dst += kBytes, src += kBytes) {
    std::memcpy(dst, src, kBytes);
  }
  copy_tail<kBytes / 2>(dst, src, bytes);
}

template <int kBytes, typename T>
KILN_ALWAYS_INLINE void zero_elements(T* dst, int64_t n) {
  alignas(kBytes) static constexpr T kZeros[kBytes / sizeof(T)] = {};
  for (; n >= static_cast<int64_t>(kBytes / sizeof(T)); n -= kBytes / sizeof(T)) {
    copy_elements<kBytes>(dst, kZeros, kBytes / sizeof(T));
    dst += kBytes / sizeof(T);
  }
  copy_elements<kBytes>(dst, kZeros, n);
}

// dst[j] = src[j * stride] for j < n. Strides 1 and 2 (nearly every depthwise convolution) copy
// whole vectors: stride 2 takes the even lanes of two, and stops while the odd lane past the
// last element would lie beyond src[(n - 1) * 2], which may end the tensor.
template <typename T, int kBytes>
KILN_ALWAYS_INLINE void copy_strided(const T* src, int64_t stride, int64_t n, T* dst) {
  if (stride == 1) {
    copy_elements<kBytes>(dst, src, n);
    return;
  }
  int64_t j = 0;
  if (stride == 2) {
    using V = Vector<T, kBytes>;
    using Index = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
    typedef Index Mask __attribute__((vector_size(kBytes)));
    constexpr int64_t lanes = kBytes / sizeof(T);
    Mask even;
    for (int64_t l = 0; l < lanes; ++l) even[l] = static_cast<Index>(2 * l);
    for (; j + lanes < n; j += lanes) {
      V low, high;
      std::memcpy(&low, src + 2 * j, sizeof(V));
      std::memcpy(&high, src + 2 * j + lanes, sizeof(V));
      const V taken = __builtin_shuffle(low, high, even);
      std::memcpy(dst + j, &taken, sizeof(V));
    }
  }
  for (; j < n; ++j) dst[j] = src[j * stride];
}

}  // namespace kiln::portable
