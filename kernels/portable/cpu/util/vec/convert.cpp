// Per-dtype load, round and store loops, instantiated once for each compute type.
#include "kernels/portable/cpu/util/vec/convert.h"

#include <cstring>
#include <limits>

#include "kernels/portable/cpu/isa/convert_rows.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "runtime/core/half.h"

namespace kiln::portable {
namespace {

// Half widened in software: exponent and mantissa shifted into float position and scaled by
// 2^112 rebias exactly (subnormals included); infinity and NaN, which land at 2^16 and above, get
// float's top exponent. Fewer operations than half.h's general converter, and it vectorises.
KILN_ALWAYS_INLINE float widen_half_bits(uint16_t bits) {
  const uint32_t magnitude = static_cast<uint32_t>(bits & 0x7fffu) << 13;
  const float scaled = kiln::detail::bits_float(magnitude) * 5.192296858534828e+33f;
  const uint32_t special = kiln::detail::mask_if(scaled >= 65536.0f) & 0x7f800000u;
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  return kiln::detail::bits_float(kiln::detail::float_bits(scaled) | special | sign);
}

// The plain rows: Half's converts what isa::widen_row and friends leave (no clones: every CPU the
// clones target has the ISA room's F16C rows), BFloat16's widening and rounding are shifts,
// which the clones vectorise as well as hardware would.
void widen_half_soft(const Half* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = widen_half_bits(src[i].x);
}
void narrow_half_soft(const float* src, Half* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i].x = kiln::detail::float_to_half_bits(src[i]);
}
void round_half_soft(float* values, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    values[i] = widen_half_bits(kiln::detail::float_to_half_bits(values[i]));
  }
}
KILN_HOT_LOOP void widen_bfloat16_soft(const BFloat16* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = kiln::detail::bfloat16_bits_to_float(src[i].x);
}
// Without a clone: CPUs with AVX2 take isa::narrow_row's loop, which leaves its tail to this one
// (out of line, so that its baseline vector loop is not compiled a second time inside each caller).
KILN_NOINLINE void narrow_bfloat16_soft(const float* src, BFloat16* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i].x = kiln::detail::float_to_bfloat16_bits(src[i]);
}
KILN_HOT_LOOP void round_bfloat16_soft(float* values, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    values[i] =
        kiln::detail::bfloat16_bits_to_float(kiln::detail::float_to_bfloat16_bits(values[i]));
  }
}

template <typename T>
constexpr bool is_float16_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Element conversions; Half and BFloat16 go through the branch-free converters so row loops
// vectorise.
template <typename C, typename T>
inline C load_value(T value) {
  if constexpr (std::is_same_v<T, Half>) {
    return static_cast<C>(detail::half_bits_to_float(value.x));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return static_cast<C>(detail::bfloat16_bits_to_float(value.x));
  } else {
    return static_cast<C>(value);
  }
}

template <typename T, typename C>
inline T store_value(C value) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half::from_bits(detail::float_to_half_bits(static_cast<float>(value)));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16::from_bits(detail::float_to_bfloat16_bits(static_cast<float>(value)));
  } else {
    return convert_value<T>(value);
  }
}

// Half and BFloat16 meet the other compute types (double, int64_t) through float, which is what
// their element conversions do anyway (load_value, store_value): a block at a time, so the float
// rows' fast conversions do the 16-bit work, once, rather than a software copy per compute type.
// `type` is Half or BFloat16, and one loop serves both.
constexpr int64_t kThroughFloatBlock = 256;

template <typename C>
void load_contiguous(const void* src, ScalarType src_type, int64_t n, C* dst);

template <typename C>
void load_through_float(const void* src, ScalarType type, int64_t n, C* dst) {
  const uint16_t* from = static_cast<const uint16_t*>(src);
  float block[kThroughFloatBlock];
  for (int64_t start = 0; start < n; start += kThroughFloatBlock) {
    const int64_t m = n - start < kThroughFloatBlock ? n - start : kThroughFloatBlock;
    load_contiguous<float>(from + start, type, m, block);
    for (int64_t i = 0; i < m; ++i) dst[start + i] = static_cast<C>(block[i]);
  }
}

template <typename C>
void store_through_float(const C* src, int64_t n, ScalarType type, void* dst) {
  uint16_t* to = static_cast<uint16_t*>(dst);
  float block[kThroughFloatBlock];
  for (int64_t start = 0; start < n; start += kThroughFloatBlock) {
    const int64_t m = n - start < kThroughFloatBlock ? n - start : kThroughFloatBlock;
    for (int64_t i = 0; i < m; ++i) block[i] = static_cast<float>(src[start + i]);
    store_row<float>(block, m, type, to + start);
  }
}

void round_through_float(double* values, int64_t n, ScalarType type) {
  float block[kThroughFloatBlock];
  for (int64_t start = 0; start < n; start += kThroughFloatBlock) {
    const int64_t m = n - start < kThroughFloatBlock ? n - start : kThroughFloatBlock;
    for (int64_t i = 0; i < m; ++i) block[i] = static_cast<float>(values[start + i]);
    round_row<float>(block, m, type);
    for (int64_t i = 0; i < m; ++i) values[start + i] = block[i];
  }
}

template <typename C, typename T>
void load_typed(const T* src, int64_t n, C* dst) {
  if constexpr (std::is_same_v<T, bool>) {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C>(load_bool_byte(&src[i]));
  } else if constexpr (std::is_same_v<C, float> && is_float16_v<T>) {
    widen_row(src, dst, n);
  } else if constexpr (is_float16_v<T>) {
    load_through_float(src, CppToScalarType<T>::value, n, dst);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = load_value<C>(src[i]);
  }
}

// load_row of contiguous elements.
template <typename C>
void load_contiguous(const void* src, ScalarType src_type, int64_t n, C* dst) {
#define KILN_LOAD_CASE(cpp, name)                        \
  case ScalarType::name:                                 \
    load_typed<C>(static_cast<const cpp*>(src), n, dst); \
    return;
  switch (src_type) {
    KILN_FORALL_SCALAR_TYPES(KILN_LOAD_CASE)
    default:
      return;
  }
#undef KILN_LOAD_CASE
}

template <typename U>
void gather_typed(const void* src, int64_t stride, int64_t n, void* dst) {
  const U* from = static_cast<const U*>(src);
  U* to = static_cast<U*>(dst);
  for (int64_t i = 0; i < n; ++i) to[i] = from[i * stride];
}

// Copies n elements of `size` bytes, `stride` elements apart, next to each other into dst.
void gather_elements(const void* src, size_t size, int64_t stride, int64_t n, void* dst) {
  switch (size) {
    case 1:
      return gather_typed<uint8_t>(src, stride, n, dst);
    case 2:
      return gather_typed<uint16_t>(src, stride, n, dst);
    case 4:
      return gather_typed<uint32_t>(src, stride, n, dst);
    default:
      return gather_typed<uint64_t>(src, stride, n, dst);
  }
}

// Whether rounding a C value to T can change it: T is a narrower type of C's category. Other
// pairs never meet (a dtype's compute type is never narrower than the dtype).
template <typename C, typename T>
constexpr bool narrower_than() {
  if constexpr (std::is_integral_v<C>) {
    return std::is_integral_v<T> && sizeof(T) < sizeof(C);
  } else {
    return !std::is_integral_v<T> && sizeof(T) < sizeof(C);
  }
}

template <typename C, typename T>
void round_typed(C* values, int64_t n) {
  if constexpr (std::is_same_v<C, float> && is_float16_v<T>) {
    round_floats_to<T>(values, n);
  } else if constexpr (is_float16_v<T> && narrower_than<C, T>()) {
    round_through_float(values, n, CppToScalarType<T>::value);
  } else if constexpr (narrower_than<C, T>()) {
    for (int64_t i = 0; i < n; ++i) values[i] = load_value<C>(store_value<T>(values[i]));
  }
}

template <typename C, typename T>
void store_typed(const C* src, int64_t n, T* dst) {
  if constexpr (std::is_same_v<C, float> && is_float16_v<T>) return narrow_row(src, dst, n);
  if constexpr (is_float16_v<T>) return store_through_float(src, n, CppToScalarType<T>::value, dst);
  for (int64_t i = 0; i < n; ++i) dst[i] = store_value<T>(src[i]);
}

}  // namespace

// The 16-bit rows stay out of line here too: their ISA and plain loops, inlined, were a copy in
// each caller below. The ISA room converts what it can (isa/convert_rows.h), the plain loops the
// rest.
KILN_NOINLINE void widen_row(const Half* src, float* dst, int64_t n) {
  const int64_t done = isa::widen_row(src, dst, n);
  if (done < n) widen_half_soft(src + done, dst + done, n - done);
}

KILN_NOINLINE void narrow_row(const float* src, Half* dst, int64_t n) {
  const int64_t done = isa::narrow_row(src, dst, n);
  if (done < n) narrow_half_soft(src + done, dst + done, n - done);
}

KILN_NOINLINE void widen_row(const BFloat16* src, float* dst, int64_t n) {
  widen_bfloat16_soft(src, dst, n);
}

KILN_NOINLINE void narrow_row(const float* src, BFloat16* dst, int64_t n) {
  const int64_t done = isa::narrow_row(src, dst, n);
  if (done < n) narrow_bfloat16_soft(src + done, dst + done, n - done);
}

KILN_NOINLINE void round_to_half(float* values, int64_t n) {
  const int64_t done = isa::round_to_half(values, n);
  if (done < n) round_half_soft(values + done, n - done);
}

KILN_NOINLINE void round_to_bfloat16(float* values, int64_t n) { round_bfloat16_soft(values, n); }

// Strided rows are gathered a block at a time and converted as contiguous ones: one strided
// loop per element size rather than one per pair of dtype and compute type.
template <typename C>
void load_row(const void* src, ScalarType src_type, int64_t stride, int64_t n, C* dst) {
  if (stride == 1) return load_contiguous(src, src_type, n, dst);
  if (n <= 0) return;
  if (stride == 0) {
    load_contiguous(src, src_type, 1, dst);
    for (int64_t i = 1; i < n; ++i) dst[i] = dst[0];
    return;
  }
  constexpr int64_t kBlock = 256;
  alignas(8) unsigned char block[kBlock * sizeof(uint64_t)];
  const size_t size = element_size(src_type);
  const char* from = static_cast<const char*>(src);
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t m = n - start < kBlock ? n - start : kBlock;
    gather_elements(from + start * stride * static_cast<int64_t>(size), size, stride, m, block);
    load_contiguous(block, src_type, m, dst + start);
  }
}

template <typename C>
void round_row(C* values, int64_t n, ScalarType type) {
#define KILN_ROUND_CASE(cpp, name)  \
  case ScalarType::name:            \
    round_typed<C, cpp>(values, n); \
    return;
  switch (type) {
    KILN_FORALL_SCALAR_TYPES(KILN_ROUND_CASE)
    default:
      return;
  }
#undef KILN_ROUND_CASE
}

template <typename C>
void store_row(const C* src, int64_t n, ScalarType dst_type, void* dst) {
#define KILN_STORE_CASE(cpp, name)                  \
  case ScalarType::name:                            \
    store_typed<C>(src, n, static_cast<cpp*>(dst)); \
    return;
  switch (dst_type) {
    KILN_FORALL_SCALAR_TYPES(KILN_STORE_CASE)
    default:
      return;
  }
#undef KILN_STORE_CASE
}

void convert_element(const void* src, ScalarType src_type, void* dst, ScalarType dst_type) {
  dispatch_compute_type(dst_type, [&](auto tag) {
    using C = typename decltype(tag)::type;
    C value{};
    load_row_as<C>(src, src_type, 0, 1, dst_type, &value);
    store_row<C>(&value, 1, dst_type, dst);
  });
}

template void load_row<float>(const void*, ScalarType, int64_t, int64_t, float*);
template void load_row<double>(const void*, ScalarType, int64_t, int64_t, double*);
template void load_row<int64_t>(const void*, ScalarType, int64_t, int64_t, int64_t*);
template void round_row<float>(float*, int64_t, ScalarType);
template void round_row<double>(double*, int64_t, ScalarType);
template void round_row<int64_t>(int64_t*, int64_t, ScalarType);
template void store_row<float>(const float*, int64_t, ScalarType, void*);
template void store_row<double>(const double*, int64_t, ScalarType, void*);
template void store_row<int64_t>(const int64_t*, int64_t, ScalarType, void*);

}  // namespace kiln::portable
