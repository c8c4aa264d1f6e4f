// ScalarType: tensor element types with ATen's codes, their C++ types, sizes and promotion.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/half.h"

#if KILN_ATEN_MODE
#include <c10/core/ScalarType.h>
#endif

namespace kiln {

#if KILN_ATEN_MODE
// ATen mode: c10's own enum, whose codes and enumerator names lean mode copies.
using ScalarType = c10::ScalarType;
#else
// Codes equal c10::ScalarType's, so serialized programs and kernel keys agree with ExecuTorch.
enum class ScalarType : int8_t {
  Byte = 0,
  Char = 1,
  Short = 2,
  Int = 3,
  Long = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  ComplexHalf = 8,
  ComplexFloat = 9,
  ComplexDouble = 10,
  Bool = 11,
  BFloat16 = 15,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
  Undefined = 127,
};
#endif

// X(cpp type, ScalarType name) for every element type a portable kernel can compute on.
#define KILN_FORALL_SCALAR_TYPES(X) \
  X(uint8_t, Byte)                  \
  X(int8_t, Char)                   \
  X(int16_t, Short)                 \
  X(int32_t, Int)                   \
  X(int64_t, Long)                  \
  X(::kiln::Half, Half)             \
  X(float, Float)                   \
  X(double, Double)                 \
  X(bool, Bool)                     \
  X(::kiln::BFloat16, BFloat16)

template <ScalarType>
struct ScalarTypeToCpp;
template <typename T>
struct CppToScalarType;

#define KILN_DEFINE_TYPE_MAP(cpp, name)                   \
  template <>                                             \
  struct ScalarTypeToCpp<ScalarType::name> {              \
    using type = cpp;                                     \
  };                                                      \
  template <>                                             \
  struct CppToScalarType<cpp> {                           \
    static constexpr ScalarType value = ScalarType::name; \
  };
KILN_FORALL_SCALAR_TYPES(KILN_DEFINE_TYPE_MAP)
#undef KILN_DEFINE_TYPE_MAP

// True for every defined code, including those (complex, unsigned wide) kernels may reject.
bool is_valid_scalar_type(int64_t code);
// "Float", "Half", ...; "Undefined" for unknown codes.
const char* to_string(ScalarType type);
// The type as a message asks for it: its name after its article and, for the 8-bit integers
// whose ATen names torch users rarely meet, torch's name: "a Float", "an Int", "a Char (int8)",
// "a Byte (uint8)". For "pass %s tensor".
const char* to_phrase(ScalarType type);
// Bytes per element; 0 for Undefined.
size_t element_size(ScalarType type);

constexpr bool is_floating_type(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::Float || t == ScalarType::Double ||
         t == ScalarType::BFloat16;
}
constexpr bool is_complex_type(ScalarType t) {
  return t == ScalarType::ComplexHalf || t == ScalarType::ComplexFloat ||
         t == ScalarType::ComplexDouble;
}
// Integer types, excluding Bool (ATen's isIntegralType(t, includeBool=false)).
constexpr bool is_integral_type(ScalarType t) {
  return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short ||
         t == ScalarType::Int || t == ScalarType::Long || t == ScalarType::UInt16 ||
         t == ScalarType::UInt32 || t == ScalarType::UInt64;
}
constexpr bool is_reduced_floating_type(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16;
}

// torch.promote_types for the real types and Bool; Undefined where torch refuses (wide unsigned
// with another type, complex).
ScalarType promote_types(ScalarType a, ScalarType b);

// torch.can_cast: whether an op may write a `from` result into a `to` tensor.
bool can_cast(ScalarType from, ScalarType to);

}  // namespace kiln
