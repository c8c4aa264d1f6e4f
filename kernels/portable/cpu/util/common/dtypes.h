// Dtype dispatch for the portable kernels: supported dtypes, compute types and fast-path types.
#pragma once

#include <cstdint>
#include <type_traits>

#include "runtime/core/scalar_type.h"
#include "runtime/kernel/kernel_runtime_context.h"

// Dtype selection (selective build down to dtypes): a kernel source compiled for an operator
// library built with DTYPE_SELECTIVE_BUILD sees the library's mask for its operators, bit
// (1 << ScalarType code) per selected dtype; everything else sees every dtype. The mask only prunes
// paths that have a general fallback (a dtype's dedicated same-dtype loop, the 16-bit float
// loops), so a kernel computes every dtype correctly whatever the mask; the generated unboxing
// refuses unselected dtypes with NotSupported before a kernel runs. The mask enters the dispatch
// templates as a template argument, so kernels compiled with different masks never share an
// instantiation.
#ifndef KILN_SELECTED_DTYPES
#define KILN_SELECTED_DTYPES (~uint64_t{0})
#endif

namespace kiln::portable {

// True when dtype t is in the dtype mask kDtypes.
template <uint64_t kDtypes = KILN_SELECTED_DTYPES>
constexpr bool dtype_selected(ScalarType t) {
  const int code = static_cast<int>(t);
  return code >= 0 && code < 64 && ((kDtypes >> code) & 1u) != 0;
}

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

// True when some dtype of the selection kDtypes computes in C (see compute_type_t), i.e. code
// computing in C is needed.
template <typename C, uint64_t kDtypes = KILN_SELECTED_DTYPES>
constexpr bool compute_type_selected() {
  constexpr uint64_t kFloatCodes = (1ull << static_cast<int>(ScalarType::Half)) |
                                   (1ull << static_cast<int>(ScalarType::Float)) |
                                   (1ull << static_cast<int>(ScalarType::BFloat16));
  constexpr uint64_t kDoubleCodes = 1ull << static_cast<int>(ScalarType::Double);
  if constexpr (std::is_same_v<C, double>) return (kDtypes & kDoubleCodes) != 0;
  if constexpr (std::is_same_v<C, float>) return (kDtypes & kFloatCodes) != 0;
  return (kDtypes & ~(kFloatCodes | kDoubleCodes)) != 0;
}

// Fails `ctx` with NotSupported: the dtype selection compiled `op` without `dtype`. Unboxing
// already refuses unselected dtypes; this keeps a direct call from computing nothing.
inline void fail_dtype_compiled_out(KernelRuntimeContext& ctx, ScalarType dtype, const char* op) {
  ctx.fail(Error::NotSupported,
           "%s: this library's dtype selection compiled the kernel without dtype %s; add it to "
           "the selection or build without DTYPE_SELECTIVE_BUILD",
           op, to_string(dtype));
}

// For kernels whose code per compute type follows the selection (`if constexpr
// (compute_type_selected<C>())`): fails `ctx` (fail_dtype_compiled_out) when dtype's compute type
// was compiled out, and returns false.
template <uint64_t kDtypes = KILN_SELECTED_DTYPES>
bool check_compute_type_compiled(KernelRuntimeContext& ctx, ScalarType dtype, const char* op) {
  bool compiled = false;
  if (dtype == ScalarType::Double) {
    compiled = compute_type_selected<double, kDtypes>();
  } else if (is_floating_type(dtype)) {
    compiled = compute_type_selected<float, kDtypes>();
  } else {
    compiled = compute_type_selected<int64_t, kDtypes>();
  }
  if (!compiled) fail_dtype_compiled_out(ctx, dtype, op);
  return compiled;
}

// Calls f(TypeTag<T>{}) when dtype t has a dedicated same-dtype loop (the dtypes whose math
// needs no conversion: Float, Double and the integers) and returns true; returns false for Half,
// BFloat16 and Bool, and for dtypes outside the selection kDtypes, which take the converting path.
template <unsigned kCategories = kAllTypes, uint64_t kDtypes = KILN_SELECTED_DTYPES, typename F>
inline bool dispatch_fast_type(ScalarType t, F&& f) {
  // One dedicated loop, compiled only when its dtype is selected.
  const auto fast = [&](ScalarType type, auto tag) {
    if constexpr (dtype_selected<kDtypes>(CppToScalarType<typename decltype(tag)::type>::value)) {
      if (t == type) return f(tag), true;
    }
    return false;
  };
  if constexpr ((kCategories & kFloatingTypes) != 0) {
    if (fast(ScalarType::Float, TypeTag<float>{})) return true;
    if (fast(ScalarType::Double, TypeTag<double>{})) return true;
  }
  if constexpr ((kCategories & kIntegralTypes) != 0) {
    if (fast(ScalarType::Long, TypeTag<int64_t>{})) return true;
    if (fast(ScalarType::Int, TypeTag<int32_t>{})) return true;
    if (fast(ScalarType::Short, TypeTag<int16_t>{})) return true;
    if (fast(ScalarType::Char, TypeTag<int8_t>{})) return true;
    if (fast(ScalarType::Byte, TypeTag<uint8_t>{})) return true;
  }
  return false;
}

// Calls f(T*) (a null pointer naming the element type T) for dtype t, any of the ten supported
// dtypes (whatever the dtype selection); other dtypes do nothing.
template <typename F>
inline void dispatch_element_type(ScalarType t, F&& f) {
  switch (t) {
#define KILN_ELEMENT_CASE(cpp, name) \
  case ScalarType::name:             \
    return f(static_cast<cpp*>(nullptr));
    KILN_FORALL_SCALAR_TYPES(KILN_ELEMENT_CASE)
#undef KILN_ELEMENT_CASE
    default:
      return;
  }
}

}  // namespace kiln::portable
