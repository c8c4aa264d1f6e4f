// Strided byte copies (memcpy rows, tiled transposes, gathers), converting rows and fills.
#include "kernels/portable/cpu/util/shape/copy.h"

#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/core/half.h"

namespace kiln::portable {
namespace {

// Square tiles of a transposing copy. Each tile reads whole source lines into a buffer and
// writes whole destination lines from it, so power-of-two strides (which map every line of a
// tile to one cache set) cost no extra misses.
constexpr int64_t kTile = 16;

// n elements, dst stride ds and src stride ss (elements of U).
template <typename U>
KILN_HOT_LOOP void copy_run(U* dst, int64_t ds, const U* src, int64_t ss, int64_t n) {
  if (ds == 1 && ss == 0) {
    const U value = src[0];
    for (int64_t i = 0; i < n; ++i) dst[i] = value;
  } else if (ds == 1) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i * ss];
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
  }
}

// dst[r * dst_row + c] = src[r + c * src_col] for r < rows, c < cols, in tiles.
template <typename U>
KILN_HOT_LOOP void copy_transposed(U* dst, int64_t dst_row, const U* src, int64_t src_col,
                                   int64_t rows, int64_t cols) {
  U tile[kTile][kTile];
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t nr = rows - r0 < kTile ? rows - r0 : kTile;
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t nc = cols - c0 < kTile ? cols - c0 : kTile;
      const U* s = src + r0 + c0 * src_col;
      U* d = dst + r0 * dst_row + c0;
      if (nr == kTile && nc == kTile) {
        for (int64_t c = 0; c < kTile; ++c) {
          for (int64_t r = 0; r < kTile; ++r) tile[r][c] = s[c * src_col + r];
        }
        for (int64_t r = 0; r < kTile; ++r) {
          for (int64_t c = 0; c < kTile; ++c) d[r * dst_row + c] = tile[r][c];
        }
      } else {
        for (int64_t r = 0; r < nr; ++r) {
          for (int64_t c = 0; c < nc; ++c) d[r * dst_row + c] = s[c * src_col + r];
        }
      }
    }
  }
}

// Calls f(dst, src) at every index of dims [0, ndim) of `view`, strides scaled to bytes.
template <typename F>
void for_each_index(const int64_t* sizes, const int64_t* ds, const int64_t* ss, int64_t ndim,
                    char* dst, const char* src, F&& f) {
  int64_t index[kCopyViewDims] = {};
  int64_t total = 1;
  for (int64_t d = 0; d < ndim; ++d) total *= sizes[d];
  for (int64_t t = 0; t < total; ++t) {
    f(dst, src);
    for (int64_t d = ndim - 1; d >= 0; --d) {
      if (++index[d] < sizes[d]) {
        dst += ds[d];
        src += ss[d];
        break;
      }
      dst -= ds[d] * (sizes[d] - 1);
      src -= ss[d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
}

template <typename U>
void copy_view_typed(char* dst, const char* src, CopyView& v) {
  const int64_t last = v.ndim - 1;
  const int64_t n = v.sizes[last];
  const int64_t ds = v.dst_strides[last];
  const int64_t ss = v.src_strides[last];
  const int64_t es = static_cast<int64_t>(sizeof(U));
  int64_t outer_ds[kCopyViewDims];
  int64_t outer_ss[kCopyViewDims];
  int64_t outer_sizes[kCopyViewDims];
  if (ds == 1 && ss == 1) {
    for (int64_t d = 0; d < last; ++d) {
      outer_ds[d] = v.dst_strides[d] * es;
      outer_ss[d] = v.src_strides[d] * es;
    }
    const size_t row = static_cast<size_t>(n) * sizeof(U);
    for_each_index(v.sizes, outer_ds, outer_ss, last, dst, src,
                   [&](char* d, const char* s) { std::memcpy(d, s, row); });
    return;
  }
  // A transposing view: the destination runs along the last dim, the source along another.
  int64_t k = -1;
  if (ds == 1 && ss != 0) {
    for (int64_t d = 0; d < last; ++d) {
      if (v.src_strides[d] == 1 && v.sizes[d] >= 8 && n >= 8) k = d;
    }
  }
  if (k >= 0) {
    int64_t m = 0;
    for (int64_t d = 0; d < last; ++d) {
      if (d == k) continue;
      outer_sizes[m] = v.sizes[d];
      outer_ds[m] = v.dst_strides[d] * es;
      outer_ss[m] = v.src_strides[d] * es;
      ++m;
    }
    const int64_t rows = v.sizes[k];
    const int64_t dst_row = v.dst_strides[k];
    for_each_index(outer_sizes, outer_ds, outer_ss, m, dst, src, [&](char* d, const char* s) {
      copy_transposed(reinterpret_cast<U*>(d), dst_row, reinterpret_cast<const U*>(s), ss, rows, n);
    });
    return;
  }
  for (int64_t d = 0; d < last; ++d) {
    outer_ds[d] = v.dst_strides[d] * es;
    outer_ss[d] = v.src_strides[d] * es;
  }
  for_each_index(v.sizes, outer_ds, outer_ss, last, dst, src, [&](char* d, const char* s) {
    copy_run(reinterpret_cast<U*>(d), ds, reinterpret_cast<const U*>(s), ss, n);
  });
}

// True when a dedicated float <-> 16-bit float loop served the conversion.
bool convert_reduced_float(void* dst, ScalarType dst_type, const void* src, ScalarType src_type,
                           int64_t n) {
  if (src_type == ScalarType::Float) {
    if (dst_type == ScalarType::Half) {
      return narrow_row(static_cast<const float*>(src), static_cast<Half*>(dst), n), true;
    }
    if (dst_type == ScalarType::BFloat16) {
      return narrow_row(static_cast<const float*>(src), static_cast<BFloat16*>(dst), n), true;
    }
  } else if (dst_type == ScalarType::Float) {
    if (src_type == ScalarType::Half) {
      return widen_row(static_cast<const Half*>(src), static_cast<float*>(dst), n), true;
    }
    if (src_type == ScalarType::BFloat16) {
      return widen_row(static_cast<const BFloat16*>(src), static_cast<float*>(dst), n), true;
    }
  }
  return false;
}

// dst[i] = src[i] cast as ATen casts (convert_value); a Bool source (kBoolSource) is read as bytes
// with the nonzero test, as load_bool_byte does.
template <typename Dst, typename Src, bool kBoolSource = false>
KILN_HOT_LOOP void convert_typed(Dst* dst, const Src* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kBoolSource) {
      dst[i] = static_cast<Dst>(src[i] != 0);
    } else {
      dst[i] = convert_value<Dst>(src[i]);
    }
  }
}

// convert_typed for float to an integer dtype, with an AVX-512 clone too (the compiler's, plain
// C++): the cast goes through int64 (convert_value), and only AVX-512 converts to 64-bit integers
// in vectors (vcvttps2qq), where AVX2 converts element by element (docs/performance.md).
template <typename Dst>
KILN_MATH_LOOP void convert_float_to_integer(Dst* dst, const float* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = convert_value<Dst>(src[i]);
}

// True when a direct loop served the conversion: the pairs models convert most (masks to and
// from Bool, float to the integer dtypes and double, double to float), which through a compute-type
// buffer are far slower (docs/performance.md). Each result is the buffered path's, bit for bit.
bool convert_direct(void* dst, ScalarType dst_type, const void* src, ScalarType src_type,
                    int64_t n) {
  const auto run = [&](auto* d, const auto* s, auto bool_source) {
    convert_typed<std::remove_pointer_t<decltype(d)>,
                  std::remove_const_t<std::remove_pointer_t<decltype(s)>>, bool_source.value>(d, s,
                                                                                              n);
    return true;
  };
  const std::false_type typed;
  if (src_type == ScalarType::Bool) {
    const auto* bytes = static_cast<const uint8_t*>(src);
    const std::true_type from_bool;
    if (dst_type == ScalarType::Float) return run(static_cast<float*>(dst), bytes, from_bool);
    if (dst_type == ScalarType::Long) return run(static_cast<int64_t*>(dst), bytes, from_bool);
    if (dst_type == ScalarType::Int) return run(static_cast<int32_t*>(dst), bytes, from_bool);
    return false;
  }
  if (dst_type == ScalarType::Bool) {
    bool* out = static_cast<bool*>(dst);
    if (src_type == ScalarType::Float) return run(out, static_cast<const float*>(src), typed);
    if (src_type == ScalarType::Double) return run(out, static_cast<const double*>(src), typed);
    if (src_type == ScalarType::Long) return run(out, static_cast<const int64_t*>(src), typed);
    if (src_type == ScalarType::Int) return run(out, static_cast<const int32_t*>(src), typed);
    return false;
  }
  if (src_type == ScalarType::Float) {
    const auto* in = static_cast<const float*>(src);
    const auto to_integer = [&](auto* d) { return convert_float_to_integer(d, in, n), true; };
    if (dst_type == ScalarType::Int) return to_integer(static_cast<int32_t*>(dst));
    if (dst_type == ScalarType::Long) return to_integer(static_cast<int64_t*>(dst));
    if (dst_type == ScalarType::Double) return run(static_cast<double*>(dst), in, typed);
    if (dst_type == ScalarType::Short) return to_integer(static_cast<int16_t*>(dst));
    if (dst_type == ScalarType::Char) return to_integer(static_cast<int8_t*>(dst));
    if (dst_type == ScalarType::Byte) return to_integer(static_cast<uint8_t*>(dst));
    return false;
  }
  if (src_type == ScalarType::Double && dst_type == ScalarType::Float) {
    return run(static_cast<float*>(dst), static_cast<const double*>(src), typed);
  }
  return false;
}

template <typename U>
KILN_HOT_LOOP void fill_typed(U* dst, U value, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = value;
}

// The compute type a dtype conversion goes through, chosen so every pair converts as ATen's
// static_cast chain does (one rounding, truncation toward zero, nonzero tests for bool).
template <typename F>
void dispatch_conversion(ScalarType dst_type, ScalarType src_type, F&& f) {
  if (dst_type == ScalarType::Double) return f(TypeTag<double>{});
  if (is_floating_type(dst_type)) return f(TypeTag<float>{});
  if (is_floating_type(src_type)) return f(TypeTag<double>{});
  return f(TypeTag<int64_t>{});
}

}  // namespace

namespace {

// `view` without unit dims, and with dims that are contiguous with their inner neighbour in both
// tensors merged. False when the view has no elements.
bool simplify_view(const CopyView& view, CopyView* simplified) {
  CopyView& v = *simplified;
  v.ndim = 0;
  for (int64_t d = 0; d < view.ndim; ++d) {
    if (view.sizes[d] == 0) return false;
    if (view.sizes[d] == 1) continue;
    if (v.ndim > 0) {
      const int64_t p = v.ndim - 1;
      if (v.dst_strides[p] == view.dst_strides[d] * view.sizes[d] &&
          v.src_strides[p] == view.src_strides[d] * view.sizes[d]) {
        v.sizes[p] *= view.sizes[d];
        v.dst_strides[p] = view.dst_strides[d];
        v.src_strides[p] = view.src_strides[d];
        continue;
      }
    }
    v.push(view.sizes[d], view.dst_strides[d], view.src_strides[d]);
  }
  if (v.ndim == 0) v.push(1, 1, 1);
  return true;
}

}  // namespace

namespace {
// A 16-byte element (ComplexDouble), moved as one value.
struct Word16 {
  uint64_t half[2];
};
}  // namespace

namespace {

// A simplified view's elements, on the calling thread.
void copy_simplified(char* d, const char* s, CopyView& v, size_t element_size) {
  switch (element_size) {
    case 1:
      return copy_view_typed<uint8_t>(d, s, v);
    case 2:
      return copy_view_typed<uint16_t>(d, s, v);
    case 4:
      return copy_view_typed<uint32_t>(d, s, v);
    case 8:
      return copy_view_typed<uint64_t>(d, s, v);
    default:
      return copy_view_typed<Word16>(d, s, v);
  }
}

// Bytes a copy's chunk moves at least: below two of them a copy stays on one thread.
constexpr int64_t kCopyGrainBytes = 256 * 1024;

}  // namespace

void copy_view(const KernelRuntimeContext& ctx, void* dst, const void* src, const CopyView& view,
               size_t element_size) {
  CopyView v;
  if (!simplify_view(view, &v)) return;
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  // Split over the threads along the outermost dim: each chunk is the same view, shorter.
  int64_t inner_bytes = static_cast<int64_t>(element_size);
  for (int64_t i = 1; i < v.ndim; ++i) inner_bytes *= v.sizes[i];
  const int64_t grain = (kCopyGrainBytes + inner_bytes - 1) / inner_bytes;
  const int64_t es = static_cast<int64_t>(element_size);
  parallel_for(ctx, 0, v.sizes[0], grain, [&](int64_t first, int64_t last) {
    CopyView chunk = v;
    chunk.sizes[0] = last - first;
    copy_simplified(d + first * v.dst_strides[0] * es, s + first * v.src_strides[0] * es, chunk,
                    element_size);
  });
}

void convert_copy_view(const KernelRuntimeContext& ctx, void* dst, ScalarType dst_type,
                       const void* src, ScalarType src_type, const CopyView& view) {
  const size_t dst_es = element_size(dst_type);
  if (dst_type == src_type) return copy_view(ctx, dst, src, view, dst_es);
  CopyView v;
  if (!simplify_view(view, &v)) return;
  const size_t src_es = element_size(src_type);
  const int64_t last = v.ndim - 1;
  const int64_t n = v.sizes[last];
  const int64_t ds = v.dst_strides[last];
  const int64_t ss = v.src_strides[last];
  int64_t outer_ds[kCopyViewDims];
  int64_t outer_ss[kCopyViewDims];
  for (int64_t d = 0; d < last; ++d) {
    outer_ds[d] = v.dst_strides[d] * static_cast<int64_t>(dst_es);
    outer_ss[d] = v.src_strides[d] * static_cast<int64_t>(src_es);
  }
  char* d0 = static_cast<char*>(dst);
  const char* s0 = static_cast<const char*>(src);
  if (ds == 1 && ss == 1) {  // rows contiguous in both: the flat conversion, row by row
    for_each_index(v.sizes, outer_ds, outer_ss, last, d0, s0,
                   [&](char* d, const char* s) { convert_copy(d, dst_type, s, src_type, n); });
    return;
  }
  // Strided rows: gather a chunk of source elements converted to the compute type, store it
  // densely and scatter it when the destination row is strided too.
  dispatch_conversion(dst_type, src_type, [&](auto tag) {
    using C = typename decltype(tag)::type;
    constexpr int64_t kChunk = 256;
    C buffer[kChunk];
    alignas(8) unsigned char stored[kChunk * sizeof(double)];
    for_each_index(v.sizes, outer_ds, outer_ss, last, d0, s0, [&](char* d, const char* s) {
      for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t m = n - i < kChunk ? n - i : kChunk;
        load_row<C>(s + i * ss * static_cast<int64_t>(src_es), src_type, ss, m, buffer);
        char* row = d + i * ds * static_cast<int64_t>(dst_es);
        if (ds == 1) {
          store_row<C>(buffer, m, dst_type, row);
        } else {
          store_row<C>(buffer, m, dst_type, stored);
          CopyView scatter;
          scatter.push(m, ds, 1);
          copy_simplified(row, reinterpret_cast<const char*>(stored), scatter, dst_es);
        }
      }
    });
  });
}

void view_in_dim_order(const Tensor& dst, const int64_t* src_strides, CopyView* view) {
  view->ndim = 0;
  for (DimOrderType d : dst.dim_order()) {
    view->push(dst.size(d), dst.strides()[d], src_strides[d]);
  }
}

void contiguous_strides(ArrayRef<SizesType> sizes, int64_t* strides) {
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= sizes[d] > 1 ? sizes[d] : 1;
  }
}

void convert_copy(void* dst, ScalarType dst_type, const void* src, ScalarType src_type, int64_t n) {
  if (n <= 0) return;
  if (dst_type == src_type) {
    std::memcpy(dst, src, static_cast<size_t>(n) * element_size(dst_type));
    return;
  }
  if (convert_reduced_float(dst, dst_type, src, src_type, n)) return;
  if (convert_direct(dst, dst_type, src, src_type, n)) return;
  const size_t dst_es = element_size(dst_type);
  const size_t src_es = element_size(src_type);
  dispatch_conversion(dst_type, src_type, [&](auto tag) {
    using C = typename decltype(tag)::type;
    constexpr int64_t kChunk = 512;
    C buffer[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
      const int64_t m = n - i < kChunk ? n - i : kChunk;
      load_row<C>(static_cast<const char*>(src) + i * src_es, src_type, 1, m, buffer);
      store_row<C>(buffer, m, dst_type, static_cast<char*>(dst) + i * dst_es);
    }
  });
}

void fill_elements(void* dst, const void* value, size_t element_size, int64_t n) {
  if (n <= 0) return;  // an empty tensor's data may be null, which memset must never be given
  switch (element_size) {
    case 1: {
      std::memset(dst, *static_cast<const uint8_t*>(value), static_cast<size_t>(n));
      return;
    }
    case 2: {
      uint16_t v;
      std::memcpy(&v, value, 2);
      return fill_typed(static_cast<uint16_t*>(dst), v, n);
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, value, 4);
      return fill_typed(static_cast<uint32_t*>(dst), v, n);
    }
    case 8: {
      uint64_t v;
      std::memcpy(&v, value, 8);
      return fill_typed(static_cast<uint64_t*>(dst), v, n);
    }
    default: {
      Word16 v;
      std::memcpy(&v, value, sizeof(v));
      return fill_typed(static_cast<Word16*>(dst), v, n);
    }
  }
}

void scalar_to_element(const Scalar& scalar, ScalarType type, void* dst) {
  if (type == ScalarType::Bool) {  // nonzero is true, fractions and nan included
    const bool value = scalar.isFloatingPoint() ? scalar.toDouble() != 0 : scalar.toInt() != 0;
    std::memcpy(dst, &value, 1);
    return;
  }
  dispatch_compute_type(type, [&](auto tag) {
    using C = typename decltype(tag)::type;
    const C value = scalar_to<C>(scalar, type);
    store_row<C>(&value, 1, type, dst);
  });
}

void copy_bytes(const KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (self.nbytes() == 0 || out.const_data_ptr() == self.const_data_ptr()) return;
  if (tensors_overlap(self, out)) {
    std::memmove(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
    return;
  }
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  const char* src = static_cast<const char*>(self.const_data_ptr());
  parallel_for(ctx, 0, static_cast<int64_t>(self.nbytes()), kCopyGrainBytes,
               [&](int64_t first, int64_t last) {
                 std::memcpy(dst + first, src + first, static_cast<size_t>(last - first));
               });
}

bool tensors_overlap(const Tensor& a, const Tensor& b) {
  const char* a_begin = a.const_data_ptr<char>();
  const char* b_begin = b.const_data_ptr<char>();
  return a.nbytes() > 0 && b.nbytes() > 0 && a_begin < b_begin + b.nbytes() &&
         b_begin < a_begin + a.nbytes();
}

bool prepare_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out,
                      ArrayRef<SizesType> sizes) {
  return check_default_dim_order(ctx, self, "self") && check_default_dim_order(ctx, out, "out") &&
         check_out_dtype_is(ctx, out, self.scalar_type()) && resize_or_fail(ctx, out, sizes);
}

void copy_strided_to_out(const KernelRuntimeContext& ctx, const Tensor& self, const int64_t* sizes,
                         const int64_t* src_strides, int64_t ndim, const int64_t src_offset,
                         Tensor& out) {
  if (out.numel() == 0) return;
  CopyView view;
  int64_t stride = 1;
  view.ndim = ndim;
  for (int64_t d = ndim - 1; d >= 0; --d) {
    view.sizes[d] = sizes[d];
    view.src_strides[d] = src_strides[d];
    view.dst_strides[d] = stride;
    stride *= sizes[d];
  }
  const size_t es = self.element_size();
  copy_view(ctx, out.mutable_data_ptr(),
            self.const_data_ptr<char>() + src_offset * static_cast<int64_t>(es), view, es);
}

}  // namespace kiln::portable
