// Per-dtype load, round and store loops, instantiated once for each compute type.
#include "kernels/portable/cpu/util/vec/convert.h"

#include <cstring>
#include <limits>

#include "kernels/portable/cpu/util/common/target.h"
#include "runtime/core/half.h"

// Hardware Half conversions: F16C on x86-64 (picked at run time, beside the multiversioned
// clones, so a build without multiversioning stays on the baseline ISA), NEON on AArch64.
#if defined(KILN_ENABLE_MULTIVERSIONING) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#define KILN_HALF_F16C 1
#include <immintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON) && (defined(__GNUC__) || defined(__clang__))
#define KILN_HALF_NEON 1
#include <arm_neon.h>
#endif

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

// The software rows: the fallback for Half (no clones: every CPU the clones target has F16C), and
// BFloat16's (widening is a shift, which the clones vectorise as well as hardware would;
// narrowing has an AVX2 version below).
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
// Without a clone: CPUs with AVX2 take narrow_bfloat16_avx2, which ends in this loop too (out of
// line, so that its baseline vector loop is not compiled a second time inside each caller).
KILN_NOINLINE void narrow_bfloat16_soft(const float* src, BFloat16* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i].x = kiln::detail::float_to_bfloat16_bits(src[i]);
}
KILN_HOT_LOOP void round_bfloat16_soft(float* values, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    values[i] =
        kiln::detail::bfloat16_bits_to_float(kiln::detail::float_to_bfloat16_bits(values[i]));
  }
}

#if defined(KILN_HALF_F16C)
// F16C converts eight values per instruction with the rounding of the current mode, which is
// round to nearest even unless a program changed MXCSR; the immediate pins it. A tail of fewer
// than eight goes through a padded block, so every element rounds the same way.
#define KILN_F16C_TARGET __attribute__((target("avx2,f16c")))

bool cpu_has_f16c() {
  static const bool kHas = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return kHas;
}

constexpr int kF16cRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

KILN_F16C_TARGET void widen_half_f16c(const Half* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 8));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(lo));
    _mm256_storeu_ps(dst + i + 8, _mm256_cvtph_ps(hi));
  }
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  if (i == n) return;
  uint16_t block[8] = {};
  float wide[8];
  std::memcpy(block, src + i, static_cast<size_t>(n - i) * sizeof(uint16_t));
  _mm256_storeu_ps(wide, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block))));
  std::memcpy(dst + i, wide, static_cast<size_t>(n - i) * sizeof(float));
}

KILN_F16C_TARGET void narrow_half_f16c(const float* src, Half* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i lo = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), kF16cRound);
    const __m128i hi = _mm256_cvtps_ph(_mm256_loadu_ps(src + i + 8), kF16cRound);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), lo);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 8), hi);
  }
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), kF16cRound);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  if (i == n) return;
  float block[8] = {};
  uint16_t narrow[8];
  std::memcpy(block, src + i, static_cast<size_t>(n - i) * sizeof(float));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(narrow),
                   _mm256_cvtps_ph(_mm256_loadu_ps(block), kF16cRound));
  std::memcpy(dst + i, narrow, static_cast<size_t>(n - i) * sizeof(uint16_t));
}

// float_to_bfloat16_bits on eight values: rounded to nearest even by adding 0x7fff plus the kept
// part's last bit, a NaN made quiet (its top half is then (x >> 16) | 0x40), selected in 32 bits
// and shifted down, ready to pack.
KILN_F16C_TARGET inline __m256i bfloat16_top_halves(__m256i x) {
  const __m256i rounded =
      _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)),
                       _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1)));
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                         _mm256_set1_epi32(0x7f800000));
  const __m256i quiet = _mm256_or_si256(x, _mm256_set1_epi32(0x400000));
  return _mm256_srli_epi32(_mm256_blendv_epi8(rounded, quiet, nan), 16);
}

// Sixteen floats to BFloat16 at a time, the last few through narrow_bfloat16_soft. GCC's
// vectorisation of the scalar formula narrowed each arm of the NaN select apart and widened one
// back (2.5 instructions an element, where this takes one): `_to_copy` float32 -> bfloat16 of 1M
// took 134 us that way, 85 us this way.
KILN_F16C_TARGET void narrow_bfloat16_avx2(const float* src, BFloat16* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i lo = bfloat16_top_halves(_mm256_castps_si256(_mm256_loadu_ps(src + i)));
    const __m256i hi = bfloat16_top_halves(_mm256_castps_si256(_mm256_loadu_ps(src + i + 8)));
    // packus interleaves the 128-bit lanes of lo and hi; the permute puts them in order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
  if (i < n) narrow_bfloat16_soft(src + i, dst + i, n - i);
}

KILN_F16C_TARGET void round_half_f16c(float* values, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(values + i), kF16cRound);
    _mm256_storeu_ps(values + i, _mm256_cvtph_ps(h));
  }
  if (i == n) return;
  float block[8] = {};
  std::memcpy(block, values + i, static_cast<size_t>(n - i) * sizeof(float));
  const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(block), kF16cRound);
  _mm256_storeu_ps(block, _mm256_cvtph_ps(h));
  std::memcpy(values + i, block, static_cast<size_t>(n - i) * sizeof(float));
}
#endif

#if defined(KILN_HALF_NEON)
// AArch64 converts Half four at a time (FCVTL / FCVTN, rounding to nearest even in the default
// FPCR mode); the tail takes the software path. Not exercised by the x86-64 test machines.
void widen_half_neon(const Half* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint16x4_t bits = vld1_u16(reinterpret_cast<const uint16_t*>(src + i));
    vst1q_f32(dst + i, vcvt_f32_f16(vreinterpret_f16_u16(bits)));
  }
  widen_half_soft(src + i, dst + i, n - i);
}

void narrow_half_neon(const float* src, Half* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float16x4_t h = vcvt_f16_f32(vld1q_f32(src + i));
    vst1_u16(reinterpret_cast<uint16_t*>(dst + i), vreinterpret_u16_f16(h));
  }
  narrow_half_soft(src + i, dst + i, n - i);
}

void round_half_neon(float* values, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vst1q_f32(values + i, vcvt_f32_f16(vcvt_f16_f32(vld1q_f32(values + i))));
  }
  round_half_soft(values + i, n - i);
}
#endif

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

// The 16-bit rows stay out of line here too: their F16C and software loops, inlined, were a copy
// in each caller below.
KILN_NOINLINE void widen_row(const Half* src, float* dst, int64_t n) {
#if defined(KILN_HALF_F16C)
  if (cpu_has_f16c()) return widen_half_f16c(src, dst, n);
#elif defined(KILN_HALF_NEON)
  return widen_half_neon(src, dst, n);
#endif
  widen_half_soft(src, dst, n);
}

KILN_NOINLINE void narrow_row(const float* src, Half* dst, int64_t n) {
#if defined(KILN_HALF_F16C)
  if (cpu_has_f16c()) return narrow_half_f16c(src, dst, n);
#elif defined(KILN_HALF_NEON)
  return narrow_half_neon(src, dst, n);
#endif
  narrow_half_soft(src, dst, n);
}

KILN_NOINLINE void widen_row(const BFloat16* src, float* dst, int64_t n) {
  widen_bfloat16_soft(src, dst, n);
}

KILN_NOINLINE void narrow_row(const float* src, BFloat16* dst, int64_t n) {
#if defined(KILN_HALF_F16C)
  if (cpu_has_f16c()) return narrow_bfloat16_avx2(src, dst, n);
#endif
  narrow_bfloat16_soft(src, dst, n);
}

KILN_NOINLINE void round_to_half(float* values, int64_t n) {
#if defined(KILN_HALF_F16C)
  if (cpu_has_f16c()) return round_half_f16c(values, n);
#elif defined(KILN_HALF_NEON)
  return round_half_neon(values, n);
#endif
  round_half_soft(values, n);
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
