// ScalarType names, sizes and ATen's promotion lattice.
#include "runtime/core/scalar_type.h"

namespace kiln {

bool is_valid_scalar_type(int64_t code) {
  return (code >= 0 && code <= 11) || code == 15 || (code >= 27 && code <= 29);
}

const char* to_string(ScalarType type) {
  switch (type) {
    case ScalarType::Byte:
      return "Byte";
    case ScalarType::Char:
      return "Char";
    case ScalarType::Short:
      return "Short";
    case ScalarType::Int:
      return "Int";
    case ScalarType::Long:
      return "Long";
    case ScalarType::Half:
      return "Half";
    case ScalarType::Float:
      return "Float";
    case ScalarType::Double:
      return "Double";
    case ScalarType::ComplexHalf:
      return "ComplexHalf";
    case ScalarType::ComplexFloat:
      return "ComplexFloat";
    case ScalarType::ComplexDouble:
      return "ComplexDouble";
    case ScalarType::Bool:
      return "Bool";
    case ScalarType::BFloat16:
      return "BFloat16";
    case ScalarType::UInt16:
      return "UInt16";
    case ScalarType::UInt32:
      return "UInt32";
    case ScalarType::UInt64:
      return "UInt64";
    case ScalarType::Undefined:
      break;
  }
  return "Undefined";
}

const char* to_phrase(ScalarType type) {
  switch (type) {
    case ScalarType::Byte:
      return "a Byte (uint8)";
    case ScalarType::Char:
      return "a Char (int8)";
    case ScalarType::Short:
      return "a Short";
    case ScalarType::Int:
      return "an Int";
    case ScalarType::Long:
      return "a Long";
    case ScalarType::Half:
      return "a Half";
    case ScalarType::Float:
      return "a Float";
    case ScalarType::Double:
      return "a Double";
    case ScalarType::ComplexHalf:
      return "a ComplexHalf";
    case ScalarType::ComplexFloat:
      return "a ComplexFloat";
    case ScalarType::ComplexDouble:
      return "a ComplexDouble";
    case ScalarType::Bool:
      return "a Bool";
    case ScalarType::BFloat16:
      return "a BFloat16";
    case ScalarType::UInt16:
      return "a UInt16";
    case ScalarType::UInt32:
      return "a UInt32";
    case ScalarType::UInt64:
      return "a UInt64";
    case ScalarType::Undefined:
      break;
  }
  return "an Undefined";
}

size_t element_size(ScalarType type) {
  switch (type) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Bool:
      return 1;
    case ScalarType::Short:
    case ScalarType::Half:
    case ScalarType::BFloat16:
    case ScalarType::UInt16:
      return 2;
    case ScalarType::Int:
    case ScalarType::Float:
    case ScalarType::UInt32:
    case ScalarType::ComplexHalf:
      return 4;
    case ScalarType::Long:
    case ScalarType::Double:
    case ScalarType::UInt64:
    case ScalarType::ComplexFloat:
      return 8;
    case ScalarType::ComplexDouble:
      return 16;
    case ScalarType::Undefined:
      break;
  }
  return 0;
}

namespace {

// Width rank among the signed integers, used to pick the wider one.
int signed_rank(ScalarType t) {
  switch (t) {
    case ScalarType::Char:
      return 1;
    case ScalarType::Short:
      return 2;
    case ScalarType::Int:
      return 3;
    case ScalarType::Long:
      return 4;
    default:
      return 0;
  }
}

ScalarType promote_integers(ScalarType a, ScalarType b) {
  if (a == ScalarType::Byte || b == ScalarType::Byte) {
    const ScalarType other = a == ScalarType::Byte ? b : a;
    // uint8 with a signed type needs a signed type that holds 0..255: at least int16.
    return signed_rank(other) < signed_rank(ScalarType::Short) ? ScalarType::Short : other;
  }
  return signed_rank(a) >= signed_rank(b) ? a : b;
}

ScalarType promote_floats(ScalarType a, ScalarType b) {
  if (is_reduced_floating_type(a) && is_reduced_floating_type(b)) {
    return ScalarType::Float;  // Half with BFloat16 has no common 16-bit type
  }
  return element_size(a) >= element_size(b) ? a : b;
}

bool is_wide_unsigned(ScalarType t) {
  return t == ScalarType::UInt16 || t == ScalarType::UInt32 || t == ScalarType::UInt64;
}

}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (is_complex_type(a) || is_complex_type(b) || a == ScalarType::Undefined ||
      b == ScalarType::Undefined) {
    return ScalarType::Undefined;
  }
  if (a == ScalarType::Bool) return b;
  if (b == ScalarType::Bool) return a;
  if (is_wide_unsigned(a) || is_wide_unsigned(b)) return ScalarType::Undefined;
  const bool a_float = is_floating_type(a);
  const bool b_float = is_floating_type(b);
  if (a_float && b_float) return promote_floats(a, b);
  if (a_float) return a;
  if (b_float) return b;
  return promote_integers(a, b);
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex_type(from) && !is_complex_type(to)) return false;
  if (is_floating_type(from) && (is_integral_type(to) || to == ScalarType::Bool)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

}  // namespace kiln
