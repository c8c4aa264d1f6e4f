// Scalar: a bool, integer or floating value passed to operators (ATen's c10::Scalar subset).
#pragma once

#include <cstdint>
#include <type_traits>

#include "runtime/core/scalar_type.h"

#if KILN_ATEN_MODE
#include <c10/core/Scalar.h>

namespace kiln {
using Scalar = c10::Scalar;  // ATen mode: c10's (its toInt() is 32-bit; use toLong())
}  // namespace kiln
#else
namespace kiln {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double };

  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool value) : kind_(Kind::Bool) { value_.as_bool = value; }
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T value) : kind_(Kind::Int) {
    value_.as_int = static_cast<int64_t>(value);
  }
  Scalar(double value) : kind_(Kind::Double) { value_.as_double = value; }
  Scalar(float value) : Scalar(static_cast<double>(value)) {}

  Kind kind() const { return kind_; }
  bool isBoolean() const { return kind_ == Kind::Bool; }
  bool isIntegral(bool include_bool) const {
    return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool);
  }
  bool isFloatingPoint() const { return kind_ == Kind::Double; }

  // Converting accessors: each kind converts to any requested C++ type.
  template <typename T>
  T to() const {
    switch (kind_) {
      case Kind::Bool:
        return static_cast<T>(value_.as_bool);
      case Kind::Int:
        return static_cast<T>(value_.as_int);
      case Kind::Double:
        break;
    }
    return static_cast<T>(value_.as_double);
  }
  bool toBool() const { return to<bool>(); }
  int64_t toInt() const { return to<int64_t>(); }
  double toDouble() const { return to<double>(); }

  // The dtype torch gives a tensor made from this value: Bool, Long or Double.
  ScalarType type() const {
    return kind_ == Kind::Bool  ? ScalarType::Bool
           : kind_ == Kind::Int ? ScalarType::Long
                                : ScalarType::Double;
  }

 private:
  Kind kind_;
  union {
    bool as_bool;
    int64_t as_int;
    double as_double;
  } value_;
};

}  // namespace kiln
#endif
