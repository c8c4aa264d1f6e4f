// Checked unboxing of EValue stacks, shared by every generated wrapper to keep them small.
//
// A generated wrapper describes its schema as an ArgSpec array, calls check_arguments once, and
// then reads values with the unchecked EValue accessors or the converters below.
#pragma once

#include <optional>
#include <string_view>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor_options.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln {

// What a schema argument accepts. Optional kinds also accept None.
enum class ArgKind : uint8_t {
  Tensor,
  OptionalTensor,
  TensorList,
  OptionalTensorList,
  Int,
  OptionalInt,
  IntList,
  OptionalIntList,
  Double,  // accepts Int too
  OptionalDouble,
  DoubleList,
  OptionalDoubleList,
  Bool,
  OptionalBool,
  BoolList,
  Scalar,  // Int, Double or Bool
  OptionalScalar,
  String,
  OptionalString,
  ScalarType,  // an Int holding a valid ScalarType code
  OptionalScalarType,
  MemoryFormat,  // an Int holding a MemoryFormat code
  OptionalMemoryFormat,
  Layout,
  OptionalLayout,
};

struct ArgSpec {
  const char* name;
  ArgKind kind;
};

// Checks the argument count and every tag. On a mismatch it records InvalidProgram in `ctx`
// naming the operator, the argument's index and name, the expected kind and the actual tag, and
// returns it. Also sets ctx's op name so kernel failures name the operator.
//
// `return_slots` more values follow the arguments when the op returns tensors that are not out
// arguments (an in-place op's self, a functional op's new tensors); the wrapper stores the
// results there, so only their presence is checked, not their tags.
Error check_arguments(KernelRuntimeContext& ctx, const char* op_name, Span<EValue*> stack,
                      ArrayRef<ArgSpec> specs, size_t return_slots = 0);

// Dtype-selective libraries: after check_arguments, checks that every tensor argument (tensor
// lists included) has a dtype in `dtype_mask` (bit 1 << ScalarType code), the dtypes the library
// was built for. Otherwise records NotSupported in `ctx` naming the argument, its dtype and the
// selected dtypes, and returns it.
Error check_selected_dtypes(KernelRuntimeContext& ctx, Span<EValue*> stack, ArrayRef<ArgSpec> specs,
                            uint64_t dtype_mask);

// Converters for values check_arguments has accepted.
namespace unbox {

inline std::optional<Tensor> optional_tensor(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<Tensor>(v.toTensor());
}
inline std::optional<int64_t> optional_int(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<int64_t>(v.toInt());
}
inline std::optional<IntArrayRef> optional_int_list(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<IntArrayRef>(v.toIntList());
}
inline std::optional<double> optional_double(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<double>(v.toDouble());
}
inline std::optional<ArrayRef<double>> optional_double_list(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<ArrayRef<double>>(v.toDoubleList());
}
inline std::optional<bool> optional_bool(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<bool>(v.toBool());
}
inline std::optional<Scalar> optional_scalar(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<Scalar>(v.toScalar());
}
inline std::optional<std::string_view> optional_string(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<std::string_view>(v.toString());
}
inline ScalarType scalar_type(const EValue& v) { return static_cast<ScalarType>(v.toInt()); }
inline std::optional<ScalarType> optional_scalar_type(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<ScalarType>(scalar_type(v));
}
inline MemoryFormat memory_format(const EValue& v) { return static_cast<MemoryFormat>(v.toInt()); }
inline std::optional<MemoryFormat> optional_memory_format(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<MemoryFormat>(memory_format(v));
}
inline Layout layout(const EValue& v) { return static_cast<Layout>(v.toInt()); }
inline std::optional<Layout> optional_layout(const EValue& v) {
  return v.isNone() ? std::nullopt : std::optional<Layout>(layout(v));
}

}  // namespace unbox
}  // namespace kiln
