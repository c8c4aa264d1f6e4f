// eq, ne, lt, le, gt and ge (.Tensor_out and .Scalar_out): elementwise comparisons computed in
// the promoted dtype; out is Bool by default and may be of any dtype (it receives 0 or 1).
#include "kernels/portable/cpu/util/binary_ops.h"
#include "kernels/portable/cpu/util/elementwise.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

enum class Comparison : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

template <Comparison kComparison, typename T>
inline bool compare(T a, T b) {
  if constexpr (kComparison == Comparison::kEq) return a == b;
  if constexpr (kComparison == Comparison::kNe) return a != b;
  if constexpr (kComparison == Comparison::kLt) return a < b;
  if constexpr (kComparison == Comparison::kLe) return a <= b;
  if constexpr (kComparison == Comparison::kGt) return a > b;
  if constexpr (kComparison == Comparison::kGe) return a >= b;
}

template <Comparison kComparison>
Tensor& compare_inputs(const Tensor& self, const ElementwiseInput& other, ScalarType common,
                       Tensor& out) {
  apply_binary_predicate(ElementwiseInput::of(self), other, common, out, [](auto zero) {
    using T = decltype(zero);
    return [](T a, T b) { return compare<kComparison>(a, b); };
  });
  return out;
}

template <Comparison kComparison>
Tensor& compare_tensor(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                       Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kAny);
  if (common == ScalarType::Undefined) return out;
  return compare_inputs<kComparison>(self, ElementwiseInput::of(other), common, out);
}

template <Comparison kComparison>
Tensor& compare_scalar(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kAny);
  if (common == ScalarType::Undefined) return out;
  ScalarStorage storage;
  return compare_inputs<kComparison>(self, scalar_input(other, storage), common, out);
}

}  // namespace

Tensor& eq_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                      Tensor& out) {
  return compare_tensor<Comparison::kEq>(ctx, self, other, out);
}

Tensor& eq_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                      Tensor& out) {
  return compare_scalar<Comparison::kEq>(ctx, self, other, out);
}

Tensor& ne_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                      Tensor& out) {
  return compare_tensor<Comparison::kNe>(ctx, self, other, out);
}

Tensor& ne_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                      Tensor& out) {
  return compare_scalar<Comparison::kNe>(ctx, self, other, out);
}

Tensor& lt_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                      Tensor& out) {
  return compare_tensor<Comparison::kLt>(ctx, self, other, out);
}

Tensor& lt_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                      Tensor& out) {
  return compare_scalar<Comparison::kLt>(ctx, self, other, out);
}

Tensor& le_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                      Tensor& out) {
  return compare_tensor<Comparison::kLe>(ctx, self, other, out);
}

Tensor& le_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                      Tensor& out) {
  return compare_scalar<Comparison::kLe>(ctx, self, other, out);
}

Tensor& gt_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                      Tensor& out) {
  return compare_tensor<Comparison::kGt>(ctx, self, other, out);
}

Tensor& gt_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                      Tensor& out) {
  return compare_scalar<Comparison::kGt>(ctx, self, other, out);
}

Tensor& ge_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                      Tensor& out) {
  return compare_tensor<Comparison::kGe>(ctx, self, other, out);
}

Tensor& ge_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                      Tensor& out) {
  return compare_scalar<Comparison::kGe>(ctx, self, other, out);
}

}  // namespace kiln::portable::native
