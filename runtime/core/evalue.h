// EValue: the tagged union that carries operator arguments on a boxed stack.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "runtime/core/scalar.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace kiln {

enum class Tag : uint8_t {
  None,
  Tensor,
  String,
  Double,
  Int,
  Bool,
  ListBool,
  ListDouble,
  ListInt,
  ListTensor,
  ListOptionalTensor,
};

// "Tensor", "Int", ...
const char* to_string(Tag tag);

#if !KILN_ATEN_MODE  // ATen mode's EValue, holding at::Tensor: runtime/core/aten/evalue.h
// Non-owning: lists and strings view memory owned by whoever built the stack.
class EValue {
 public:
  EValue() : tag_(Tag::None) { payload_.as_int = 0; }
  EValue(Tensor t) : tag_(Tag::Tensor) { payload_.as_tensor = t; }
  EValue(int64_t i) : tag_(Tag::Int) { payload_.as_int = i; }
  EValue(double d) : tag_(Tag::Double) { payload_.as_double = d; }
  EValue(bool b) : tag_(Tag::Bool) { payload_.as_bool = b; }
  EValue(std::string_view s) : tag_(Tag::String) { payload_.as_string = s; }
  EValue(ArrayRef<bool> list) : tag_(Tag::ListBool) { payload_.as_bool_list = list; }
  EValue(ArrayRef<double> list) : tag_(Tag::ListDouble) { payload_.as_double_list = list; }
  EValue(ArrayRef<int64_t> list) : tag_(Tag::ListInt) { payload_.as_int_list = list; }
  EValue(ArrayRef<Tensor> list) : tag_(Tag::ListTensor) { payload_.as_tensor_list = list; }
  EValue(ArrayRef<std::optional<Tensor>> list) : tag_(Tag::ListOptionalTensor) {
    payload_.as_optional_tensor_list = list;
  }
  // A Scalar boxes as the Bool, Int or Double it holds (ExecuTorch's convention).
  EValue(const Scalar& s) : EValue() {
    if (s.isBoolean()) {
      *this = EValue(s.toBool());
    } else if (s.isIntegral(false)) {
      *this = EValue(s.toInt());
    } else {
      *this = EValue(s.toDouble());
    }
  }

  Tag tag() const { return tag_; }
  bool isNone() const { return tag_ == Tag::None; }
  bool isTensor() const { return tag_ == Tag::Tensor; }
  bool isInt() const { return tag_ == Tag::Int; }
  bool isDouble() const { return tag_ == Tag::Double; }
  bool isBool() const { return tag_ == Tag::Bool; }
  bool isScalar() const { return isInt() || isDouble() || isBool(); }

  // Unchecked accessors: the caller has checked tag() (the generated unboxing does).
  Tensor& toTensor() { return payload_.as_tensor; }
  const Tensor& toTensor() const { return payload_.as_tensor; }
  int64_t toInt() const { return payload_.as_int; }
  // Int widens to double, as TorchScript does for float arguments.
  double toDouble() const {
    return tag_ == Tag::Int ? static_cast<double>(payload_.as_int) : payload_.as_double;
  }
  bool toBool() const { return payload_.as_bool; }
  std::string_view toString() const { return payload_.as_string; }
  Scalar toScalar() const {
    return tag_ == Tag::Bool  ? Scalar(payload_.as_bool)
           : tag_ == Tag::Int ? Scalar(payload_.as_int)
                              : Scalar(payload_.as_double);
  }
  ArrayRef<bool> toBoolList() const { return payload_.as_bool_list; }
  ArrayRef<double> toDoubleList() const { return payload_.as_double_list; }
  ArrayRef<int64_t> toIntList() const { return payload_.as_int_list; }
  ArrayRef<Tensor> toTensorList() const { return payload_.as_tensor_list; }
  ArrayRef<std::optional<Tensor>> toListOptionalTensor() const {
    return payload_.as_optional_tensor_list;
  }

 private:
  Tag tag_;
  union Payload {
    Payload() : as_int(0) {}
    Tensor as_tensor;
    int64_t as_int;
    double as_double;
    bool as_bool;
    std::string_view as_string;
    ArrayRef<bool> as_bool_list;
    ArrayRef<double> as_double_list;
    ArrayRef<int64_t> as_int_list;
    ArrayRef<Tensor> as_tensor_list;
    ArrayRef<std::optional<Tensor>> as_optional_tensor_list;
  } payload_;
};
#endif

}  // namespace kiln

#if KILN_ATEN_MODE
#include "runtime/core/aten/evalue.h"
#endif
