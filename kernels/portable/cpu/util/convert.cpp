// Per-dtype load, round and store loops, instantiated once for each compute type.
#include "kernels/portable/cpu/util/convert.h"

#include <limits>

#include "runtime/core/half.h"

namespace kiln::portable {
namespace {

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

template <typename C, typename T>
void load_typed(const T* src, int64_t stride, int64_t n, C* dst) {
  if constexpr (std::is_same_v<T, bool>) {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C>(load_bool_byte(&src[i * stride]));
    return;
  }
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) dst[i] = load_value<C>(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = load_value<C>(src[i * stride]);
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
  if constexpr (narrower_than<C, T>()) {
    for (int64_t i = 0; i < n; ++i) values[i] = load_value<C>(store_value<T>(values[i]));
  }
}

template <typename C, typename T>
void store_typed(const C* src, int64_t n, T* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = store_value<T>(src[i]);
}

}  // namespace

template <typename C>
void load_row(const void* src, ScalarType src_type, int64_t stride, int64_t n, C* dst) {
#define KILN_LOAD_CASE(cpp, name)                                \
  case ScalarType::name:                                         \
    load_typed<C>(static_cast<const cpp*>(src), stride, n, dst); \
    return;
  switch (src_type) {
    KILN_FORALL_SCALAR_TYPES(KILN_LOAD_CASE)
    default:
      return;
  }
#undef KILN_LOAD_CASE
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
