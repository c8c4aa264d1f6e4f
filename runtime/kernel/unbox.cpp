// The single tag checker behind every generated unboxing wrapper.
#include "runtime/kernel/unbox.h"

#include <cstdio>

namespace kiln {
namespace {

const char* kind_name(ArgKind kind) {
  switch (kind) {
    case ArgKind::Tensor:
      return "Tensor";
    case ArgKind::OptionalTensor:
      return "Tensor or None";
    case ArgKind::TensorList:
      return "ListTensor";
    case ArgKind::OptionalTensorList:
      return "ListOptionalTensor";
    case ArgKind::Int:
      return "Int";
    case ArgKind::OptionalInt:
      return "Int or None";
    case ArgKind::IntList:
      return "ListInt";
    case ArgKind::OptionalIntList:
      return "ListInt or None";
    case ArgKind::Double:
      return "Double";
    case ArgKind::OptionalDouble:
      return "Double or None";
    case ArgKind::DoubleList:
      return "ListDouble";
    case ArgKind::OptionalDoubleList:
      return "ListDouble or None";
    case ArgKind::Bool:
      return "Bool";
    case ArgKind::OptionalBool:
      return "Bool or None";
    case ArgKind::BoolList:
      return "ListBool";
    case ArgKind::Scalar:
      return "Scalar (Int, Double or Bool)";
    case ArgKind::OptionalScalar:
      return "Scalar or None";
    case ArgKind::String:
      return "String";
    case ArgKind::OptionalString:
      return "String or None";
    case ArgKind::ScalarType:
      return "ScalarType (Int)";
    case ArgKind::OptionalScalarType:
      return "ScalarType (Int) or None";
    case ArgKind::MemoryFormat:
      return "MemoryFormat (Int)";
    case ArgKind::OptionalMemoryFormat:
      return "MemoryFormat (Int) or None";
    case ArgKind::Layout:
      return "Layout (Int)";
    case ArgKind::OptionalLayout:
      return "Layout (Int) or None";
  }
  return "?";
}

bool is_optional(ArgKind kind) {
  switch (kind) {
    case ArgKind::OptionalTensor:
    case ArgKind::OptionalInt:
    case ArgKind::OptionalIntList:
    case ArgKind::OptionalDouble:
    case ArgKind::OptionalDoubleList:
    case ArgKind::OptionalBool:
    case ArgKind::OptionalScalar:
    case ArgKind::OptionalString:
    case ArgKind::OptionalScalarType:
    case ArgKind::OptionalMemoryFormat:
    case ArgKind::OptionalLayout:
      return true;
    default:
      return false;
  }
}

// Kinds carried as an Int that must be a valid enum code.
bool is_int_coded(ArgKind kind) {
  switch (kind) {
    case ArgKind::ScalarType:
    case ArgKind::OptionalScalarType:
    case ArgKind::MemoryFormat:
    case ArgKind::OptionalMemoryFormat:
    case ArgKind::Layout:
    case ArgKind::OptionalLayout:
      return true;
    default:
      return false;
  }
}

// Whether a present (non-None) value has the tag `kind` needs.
bool tag_matches(ArgKind kind, const EValue& v) {
  switch (kind) {
    case ArgKind::Tensor:
    case ArgKind::OptionalTensor:
      return v.isTensor() && v.toTensor().defined();
    case ArgKind::TensorList:
      return v.tag() == Tag::ListTensor;
    case ArgKind::OptionalTensorList:
      return v.tag() == Tag::ListOptionalTensor;
    case ArgKind::Int:
    case ArgKind::OptionalInt:
      return v.isInt();
    case ArgKind::IntList:
    case ArgKind::OptionalIntList:
      return v.tag() == Tag::ListInt;
    case ArgKind::Double:
    case ArgKind::OptionalDouble:
      return v.isDouble() || v.isInt();
    case ArgKind::DoubleList:
    case ArgKind::OptionalDoubleList:
      return v.tag() == Tag::ListDouble;
    case ArgKind::Bool:
    case ArgKind::OptionalBool:
      return v.isBool();
    case ArgKind::BoolList:
      return v.tag() == Tag::ListBool;
    case ArgKind::Scalar:
    case ArgKind::OptionalScalar:
      return v.isScalar();
    case ArgKind::String:
    case ArgKind::OptionalString:
      return v.tag() == Tag::String;
    case ArgKind::ScalarType:
    case ArgKind::OptionalScalarType:
      return v.isInt() && is_valid_scalar_type(v.toInt());
    case ArgKind::MemoryFormat:
    case ArgKind::OptionalMemoryFormat:
      return v.isInt() && v.toInt() >= 0 && v.toInt() <= 3;
    case ArgKind::Layout:
    case ArgKind::OptionalLayout:
      return v.isInt() && v.toInt() == 0;
  }
  return false;
}

}  // namespace

Error check_arguments(KernelRuntimeContext& ctx, const char* op_name, Span<EValue*> stack,
                      ArrayRef<ArgSpec> specs, size_t return_slots) {
  ctx.set_op_name(op_name);
  if (stack.size() != specs.size() + return_slots) {
    if (return_slots == 0) {
      ctx.fail(Error::InvalidProgram, "expected %zu arguments (including outs), got %zu",
               specs.size(), stack.size());
    } else {
      ctx.fail(Error::InvalidProgram,
               "expected %zu argument%s and %zu return slot%s, got %zu value%s", specs.size(),
               specs.size() == 1 ? "" : "s", return_slots, return_slots == 1 ? "" : "s",
               stack.size(), stack.size() == 1 ? "" : "s");
    }
    return Error::InvalidProgram;
  }
  for (size_t i = specs.size(); i < stack.size(); ++i) {
    if (stack[i] == nullptr) {
      ctx.fail(Error::InvalidProgram, "return slot %zu is a null EValue pointer", i - specs.size());
      return Error::InvalidProgram;
    }
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const EValue* value = stack[i];
    if (value == nullptr) {
      ctx.fail(Error::InvalidProgram, "argument %zu (%s) is a null EValue pointer", i,
               specs[i].name);
      return Error::InvalidProgram;
    }
    if (value->isNone() && is_optional(specs[i].kind)) continue;
    if (!tag_matches(specs[i].kind, *value)) {
      ctx.fail(Error::InvalidProgram, "argument %zu (%s) expected %s, got %s%s", i, specs[i].name,
               kind_name(specs[i].kind), to_string(value->tag()),
               value->isInt() && is_int_coded(specs[i].kind) ? " out of range" : "");
      return Error::InvalidProgram;
    }
  }
  return Error::Ok;
}

namespace {

bool dtype_in(uint64_t mask, ScalarType type) {
  const int code = static_cast<int>(type);
  return code >= 0 && code < 64 && ((mask >> code) & 1u) != 0;
}

// "Float, Long": the dtypes of `mask`, for messages.
void format_dtypes(uint64_t mask, char* buffer, size_t capacity) {
  size_t used = 0;
  buffer[0] = '\0';
  for (int code = 0; code < 64 && used < capacity; ++code) {
    if (((mask >> code) & 1u) == 0) continue;
    const int written = std::snprintf(buffer + used, capacity - used, "%s%s", used ? ", " : "",
                                      to_string(static_cast<ScalarType>(code)));
    if (written < 0) break;
    used += static_cast<size_t>(written);
  }
}

}  // namespace

Error check_selected_dtypes(KernelRuntimeContext& ctx, Span<EValue*> stack, ArrayRef<ArgSpec> specs,
                            uint64_t dtype_mask) {
  for (size_t i = 0; i < specs.size() && i < stack.size(); ++i) {
    const EValue& value = *stack[i];
    ScalarType unselected = ScalarType::Undefined;
    if (value.isTensor()) {
      if (!dtype_in(dtype_mask, value.toTensor().scalar_type())) {
        unselected = value.toTensor().scalar_type();
      }
    } else if (value.tag() == Tag::ListTensor) {
      for (const Tensor& tensor : value.toTensorList()) {
        if (!dtype_in(dtype_mask, tensor.scalar_type())) unselected = tensor.scalar_type();
      }
    } else if (value.tag() == Tag::ListOptionalTensor) {
      for (const std::optional<Tensor>& tensor : value.toListOptionalTensor()) {
        if (tensor && !dtype_in(dtype_mask, tensor->scalar_type())) {
          unselected = tensor->scalar_type();
        }
      }
    }
    if (unselected == ScalarType::Undefined) continue;
    char selected[160];
    format_dtypes(dtype_mask, selected, sizeof(selected));
    ctx.fail(Error::NotSupported,
             "argument %zu (%s) has dtype %s, which this library's dtype selection leaves out "
             "(selected: %s); add the dtype to the selection (et_kernel_metadata, or a model "
             "that uses it) or build the library without DTYPE_SELECTIVE_BUILD",
             i, specs[i].name, to_string(unselected), selected[0] ? selected : "none");
    return Error::NotSupported;
  }
  return Error::Ok;
}

}  // namespace kiln
