// EValue: the tagged union that carries operator arguments on a boxed stack.
#pragma once

#include <cstdint>
#include <cstring>
#include <new>
#include <optional>
#include <string_view>
#include <utility>

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

// Lists and strings view memory owned by whoever built the stack. The tensor alternative is
// constructed, copied and destroyed explicitly: in lean mode that is trivial, in ATen mode it
// manages the at::Tensor's reference count.
class EValue {
 public:
  EValue() : tag_(Tag::None) { payload_.as_int = 0; }
  EValue(Tensor t) : tag_(Tag::Tensor) { new (&payload_.as_tensor) Tensor(std::move(t)); }
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
      payload_.as_bool = s.toBool();
      tag_ = Tag::Bool;
    } else if (s.isIntegral(false)) {
      payload_.as_int = s.to<int64_t>();
      tag_ = Tag::Int;
    } else {
      payload_.as_double = s.toDouble();
      tag_ = Tag::Double;
    }
  }

  EValue(const EValue& other) : tag_(Tag::None) { copy_from(other); }
  EValue(EValue&& other) noexcept : tag_(Tag::None) { move_from(std::move(other)); }
  EValue& operator=(const EValue& other) {
    if (this != &other) {
      destroy();
      copy_from(other);
    }
    return *this;
  }
  EValue& operator=(EValue&& other) noexcept {
    if (this != &other) {
      destroy();
      move_from(std::move(other));
    }
    return *this;
  }
  ~EValue() { destroy(); }

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
  void destroy() {
    if (tag_ == Tag::Tensor) payload_.as_tensor.~Tensor();
    tag_ = Tag::None;
    payload_.as_int = 0;
  }
  // Both expect this EValue to hold nothing (tag None).
  void copy_from(const EValue& other) {
    if (other.tag_ == Tag::Tensor) {
      new (&payload_.as_tensor) Tensor(other.payload_.as_tensor);
    } else {
      copy_trivial(other);
    }
    tag_ = other.tag_;
  }
  void move_from(EValue&& other) {
    tag_ = other.tag_;
    if (tag_ == Tag::Tensor) {
      new (&payload_.as_tensor) Tensor(std::move(other.payload_.as_tensor));
      other.destroy();  // leaves `other` None
    } else {
      copy_trivial(other);
    }
  }
  // Every alternative but the tensor is trivially copyable, so its bytes are its value.
  void copy_trivial(const EValue& other) {
    std::memcpy(static_cast<void*>(&payload_), static_cast<const void*>(&other.payload_),
                sizeof(payload_));
  }

  Tag tag_;
  union Payload {
    Payload() : as_int(0) {}
    ~Payload() {}
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

}  // namespace kiln
