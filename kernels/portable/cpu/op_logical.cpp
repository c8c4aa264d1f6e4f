// logical_and.out, logical_or.out and logical_xor.out: truth values of any dtypes (nonzero is
// true) combined; out is Bool by default and may be of any dtype (it receives 0 or 1).
#include "kernels/portable/cpu/util/binary_ops.h"
#include "kernels/portable/cpu/util/elementwise.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

enum class Logical : uint8_t { kAnd, kOr, kXor };

template <Logical kLogical>
Tensor& logical(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kAny);
  if (common == ScalarType::Undefined) return out;
  apply_binary_predicate(ElementwiseInput::of(self), ElementwiseInput::of(other), common, out,
                         [](auto zero) {
                           using T = decltype(zero);
                           return [](T a, T b) {
                             const bool x = a != T(0);
                             const bool y = b != T(0);
                             if constexpr (kLogical == Logical::kAnd) return x && y;
                             if constexpr (kLogical == Logical::kOr) return x || y;
                             if constexpr (kLogical == Logical::kXor) return x != y;
                           };
                         });
  return out;
}

}  // namespace

Tensor& logical_and_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return logical<Logical::kAnd>(ctx, self, other, out);
}

Tensor& logical_or_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                       Tensor& out) {
  return logical<Logical::kOr>(ctx, self, other, out);
}

Tensor& logical_xor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return logical<Logical::kXor>(ctx, self, other, out);
}

}  // namespace kiln::portable::native
