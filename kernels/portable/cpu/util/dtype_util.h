// Dtype dispatch for the portable kernels: supported dtypes, compute types and fast-path types.
#pragma once

#include <cstdint>
#include <type_traits>

#include "runtime/core/scalar_type.h"

namespace kiln::portable {

// Names a C++ type as a value, so a generic lambda can receive it.
template <typename T>
struct TypeTag {
  using type = T;
};

// The ten dtypes the portable kernels compute on (no complex, no wide unsigned).
constexpr bool is_supported_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::Bool:
    case ScalarType::BFloat16:
      return true;
    default:
      return false;
  }
}

// The type elementwise math runs in for element type T: float for the 16- and 32-bit floats,
// double for double, int64_t for the integers and bool. One compute type per category keeps the
// dtype switches small: tensors convert to it on load and from it on store.
template <typename T>
using compute_type_t =
    std::conditional_t<std::is_same_v<T, double>, double,
                       std::conditional_t<std::is_integral_v<T>, int64_t, float>>;

// Which dtype categories a kernel instantiates code for; a kernel that only sees floating results
// (div, softmax) passes kFloatingTypes so no integer loops are compiled into it.
enum TypeCategories : unsigned {
  kIntegralTypes = 1,  // the integers and Bool
  kFloatingTypes = 2,  // Half, BFloat16, Float, Double
  kAllTypes = 3,
};

// Calls f(TypeTag<C>{}) with the compute type of dtype t. Dtypes outside kCategories are a
// precondition violation and do nothing.
template <unsigned kCategories = kAllTypes, typename F>
inline void dispatch_compute_type(ScalarType t, F&& f) {
  if constexpr ((kCategories & kFloatingTypes) != 0) {
    if (t == ScalarType::Double) return f(TypeTag<double>{});
    if (is_floating_type(t)) return f(TypeTag<float>{});
  }
  if constexpr ((kCategories & kIntegralTypes) != 0) {
    if (!is_floating_type(t)) return f(TypeTag<int64_t>{});
  }
}

// Calls f(TypeTag<T>{}) when dtype t has a dedicated same-dtype loop (the dtypes whose math
// needs no conversion: Float, Double and the integers) and returns true; returns false for Half,
// BFloat16 and Bool, which take the converting path.
template <unsigned kCategories = kAllTypes, typename F>
inline bool dispatch_fast_type(ScalarType t, F&& f) {
  if constexpr ((kCategories & kFloatingTypes) != 0) {
    if (t == ScalarType::Float) return f(TypeTag<float>{}), true;
    if (t == ScalarType::Double) return f(TypeTag<double>{}), true;
  }
  if constexpr ((kCategories & kIntegralTypes) != 0) {
    if (t == ScalarType::Long) return f(TypeTag<int64_t>{}), true;
    if (t == ScalarType::Int) return f(TypeTag<int32_t>{}), true;
    if (t == ScalarType::Short) return f(TypeTag<int16_t>{}), true;
    if (t == ScalarType::Char) return f(TypeTag<int8_t>{}), true;
    if (t == ScalarType::Byte) return f(TypeTag<uint8_t>{}), true;
  }
  return false;
}

}  // namespace kiln::portable
