// ATen mode: what generated code needs to run libtorch's at::_ops kernels behind Kiln's kernel
// signature. Converters turn Kiln's argument types into libtorch's parameter types (views, no
// copies, except Tensor?[] which libtorch takes as an owning c10::List), and
// fail_from_exception turns libtorch's exceptions into a KernelRuntimeContext failure, so nothing
// is thrown past a generated kernel.
#pragma once

#include <ATen/core/List.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/SymIntArrayRef.h>
#include <c10/util/OptionalArrayRef.h>

#include <array>
#include <exception>
#include <optional>

#include "runtime/core/span.h"
#include "runtime/core/tensor_options.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::aten_bridge {

// Records `error` in `ctx`: c10::NotImplementedError -> NotImplemented, c10::TypeError ->
// InvalidType, other c10 errors (libtorch's argument checks) -> InvalidArgument, std::bad_alloc
// -> MemoryAllocationFailed, anything else -> Internal. The message is libtorch's, without its
// backtrace.
void fail_from_exception(KernelRuntimeContext& ctx, const std::exception& error);
// Same, for something thrown that is not a std::exception.
void fail_from_unknown_exception(KernelRuntimeContext& ctx);

inline c10::IntArrayRef int_list(ArrayRef<int64_t> list) {
  return c10::IntArrayRef(list.data(), list.size());
}
inline c10::SymIntArrayRef sym_int_list(ArrayRef<int64_t> list) {
  return c10::fromIntArrayRefSlow(int_list(list));
}
inline at::OptionalIntArrayRef optional_int_list(const std::optional<ArrayRef<int64_t>>& list) {
  if (!list) return std::nullopt;
  return int_list(*list);
}
inline at::OptionalSymIntArrayRef optional_sym_int_list(
    const std::optional<ArrayRef<int64_t>>& list) {
  if (!list) return std::nullopt;
  return sym_int_list(*list);
}
inline std::optional<c10::SymInt> optional_sym_int(std::optional<int64_t> value) {
  if (!value) return std::nullopt;
  return c10::SymInt(*value);
}
inline c10::ArrayRef<double> double_list(ArrayRef<double> list) {
  return c10::ArrayRef<double>(list.data(), list.size());
}
inline std::optional<c10::ArrayRef<double>> optional_double_list(
    const std::optional<ArrayRef<double>>& list) {
  if (!list) return std::nullopt;
  return double_list(*list);
}
inline c10::ArrayRef<bool> bool_list(ArrayRef<bool> list) {
  return c10::ArrayRef<bool>(list.data(), list.size());
}
// bool[N] schema arguments are std::array<bool, N> in libtorch; missing entries are false.
template <size_t N>
std::array<bool, N> bool_array(ArrayRef<bool> list) {
  std::array<bool, N> result{};
  for (size_t i = 0; i < N && i < list.size(); ++i) result[i] = list[i];
  return result;
}
inline at::TensorList tensor_list(ArrayRef<at::Tensor> list) {
  return at::TensorList(list.data(), list.size());
}
inline c10::List<std::optional<at::Tensor>> optional_tensor_list(
    ArrayRef<std::optional<at::Tensor>> list) {
  c10::List<std::optional<at::Tensor>> result;
  result.reserve(list.size());
  for (const std::optional<at::Tensor>& tensor : list) result.push_back(tensor);
  return result;
}
inline c10::MemoryFormat memory_format(MemoryFormat format) {
  return static_cast<c10::MemoryFormat>(format);
}
inline std::optional<c10::MemoryFormat> optional_memory_format(std::optional<MemoryFormat> format) {
  if (!format) return std::nullopt;
  return memory_format(*format);
}
inline c10::Layout layout(Layout value) { return static_cast<c10::Layout>(value); }
inline std::optional<c10::Layout> optional_layout(std::optional<Layout> value) {
  if (!value) return std::nullopt;
  return layout(*value);
}

}  // namespace kiln::aten_bridge
