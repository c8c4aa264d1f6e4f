// maximum.out and minimum.out: the elementwise larger or smaller value; NaN propagates.
#include "kernels/portable/cpu/util/binary_ops.h"
#include "kernels/portable/cpu/util/elementwise.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

template <bool kMaximum>
Tensor& extremum(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  apply_binary_op(ElementwiseInput::of(self), ElementwiseInput::of(other), common, out,
                  [](auto zero) {
                    using T = decltype(zero);
                    return [](T a, T b) {
                      const bool take_a = kMaximum ? a > b : a < b;
                      // A NaN `a` is taken; a NaN `b` never loses a comparison, so it stays.
                      return take_a || a != a ? a : b;
                    };
                  });
  return out;
}

}  // namespace

Tensor& maximum_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                    Tensor& out) {
  return extremum<true>(ctx, self, other, out);
}

Tensor& minimum_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                    Tensor& out) {
  return extremum<false>(ctx, self, other, out);
}

}  // namespace kiln::portable::native
