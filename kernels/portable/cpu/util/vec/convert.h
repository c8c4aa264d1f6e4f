// Converters between tensor elements of any supported dtype and the compute types.
//
// Kernels that cannot use a same-dtype loop load rows into compute-type buffers (float, double or
// int64_t), compute there, and store back. The converters are compiled once here, not per kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/dtypes.h"
#include "runtime/core/half.h"
#include "runtime/core/scalar_type.h"

namespace kiln::portable {

// Converts one value the way ATen's casts do: bool tests for nonzero, Half and BFloat16 round
// from float, floating values truncate to integers through int64.
// A Bool element read as its byte. Planned memory is shared between tensors, so a bad program's
// Bool tensor can view bytes other than 0 and 1, which are undefined to load as bool.
inline bool load_bool_byte(const bool* element) {
  return *reinterpret_cast<const uint8_t*>(element) != 0;
}

template <typename To, typename From>
inline To convert_value(From value) {
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
      return static_cast<float>(value) != 0.0f;
    } else {
      return value != From{0};
    }
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(value));
  } else if constexpr (std::is_integral_v<To> && !std::is_integral_v<From>) {
    // Through int64 as ATen does for uint8, so negative values wrap instead of being undefined.
    return static_cast<To>(static_cast<int64_t>(static_cast<double>(value)));
  } else {
    return static_cast<To>(value);
  }
}

// dst[i] = src[i * stride] converted to C, for i < n. `stride` is in elements (0 broadcasts).
template <typename C>
void load_row(const void* src, ScalarType src_type, int64_t stride, int64_t n, C* dst);

// Rounds each value to what dtype `type` can hold (e.g. to binary16 for Half, wrapping to 8 bits
// for Char, to 0/1 for Bool), keeping it in C.
template <typename C>
void round_row(C* values, int64_t n, ScalarType type);

// dst[i] = src[i] converted to dst_type, for i < n (dst contiguous).
template <typename C>
void store_row(const C* src, int64_t n, ScalarType dst_type, void* dst);

// Loads like load_row and, when src_type differs from `common`, first converts to `common` as
// ATen does when it promotes inputs to the common dtype. (A floating src_type with a Bool
// `common` would truncate before the nonzero test; elementwise ops never meet that pair.)
template <typename C>
inline void load_row_as(const void* src, ScalarType src_type, int64_t stride, int64_t n,
                        ScalarType common, C* dst) {
  load_row<C>(src, src_type, stride, n, dst);
  if (src_type != common) round_row<C>(dst, n, common);
}

// Stores compute results of dtype `common` into a tensor of dtype dst_type (the out tensor may be
// wider than the common dtype, e.g. int8 arithmetic written into an int64 out).
template <typename C>
inline void store_row_as(C* values, int64_t n, ScalarType common, ScalarType dst_type, void* dst) {
  if (dst_type != common) round_row<C>(values, n, common);
  store_row<C>(values, n, dst_type, dst);
}

// Converts one element from src_type to dst_type (both supported dtypes).
void convert_element(const void* src, ScalarType src_type, void* dst, ScalarType dst_type);

// Contiguous rows between float and the 16-bit floats: the conversions every Half and BFloat16
// path (elementwise, reductions, softmax, norms, the gemm's packing) goes through, so there is one
// fast set. Plain loops of branch-free bit operations (BFloat16's a shift with rounding, with
// vector clones), which leave to the ISA room what the CPU converts in hardware
// (isa/convert_rows.h: F16C's Half rows and an AVX2 BFloat16 narrowing on x86-64, NEON's Half rows
// on AArch64). Rounding is ATen's: to nearest even, subnormals kept, overflow to infinity, NaN
// stays NaN (its payload may differ, as between ATen's own vector and scalar paths).
void widen_row(const Half* src, float* dst, int64_t n);
void widen_row(const BFloat16* src, float* dst, int64_t n);
void narrow_row(const float* src, Half* dst, int64_t n);
void narrow_row(const float* src, BFloat16* dst, int64_t n);

// values[i] = float(T(values[i])): rounds in place to Half's or BFloat16's precision.
void round_to_half(float* values, int64_t n);
void round_to_bfloat16(float* values, int64_t n);
template <typename T>
inline void round_floats_to(float* values, int64_t n) {
  static_assert(std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>);
  if constexpr (std::is_same_v<T, Half>) {
    round_to_half(values, n);
  } else {
    round_to_bfloat16(values, n);
  }
}

extern template void load_row<float>(const void*, ScalarType, int64_t, int64_t, float*);
extern template void load_row<double>(const void*, ScalarType, int64_t, int64_t, double*);
extern template void load_row<int64_t>(const void*, ScalarType, int64_t, int64_t, int64_t*);
extern template void round_row<float>(float*, int64_t, ScalarType);
extern template void round_row<double>(double*, int64_t, ScalarType);
extern template void round_row<int64_t>(int64_t*, int64_t, ScalarType);
extern template void store_row<float>(const float*, int64_t, ScalarType, void*);
extern template void store_row<double>(const double*, int64_t, ScalarType, void*);
extern template void store_row<int64_t>(const int64_t*, int64_t, ScalarType, void*);

}  // namespace kiln::portable
