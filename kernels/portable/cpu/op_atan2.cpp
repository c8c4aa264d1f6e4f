// atan2.out: the angle of (other, self); integer and bool inputs compute in Float.
#include <cmath>

#include "kernels/portable/cpu/util/binary_ops.h"
#include "kernels/portable/cpu/util/elementwise.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& atan2_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  const ScalarType common =
      prepare_binary(ctx, self, other, out, OutDtype::kCastable, Promotion::kToFloat);
  if (common == ScalarType::Undefined) return out;
  apply_binary_op<kFloatingTypes>(ctx, ElementwiseInput::of(self), ElementwiseInput::of(other),
                                  common, out, [](auto zero) {
                                    using T = decltype(zero);
                                    return [](T a, T b) { return std::atan2(a, b); };
                                  });
  return out;
}

}  // namespace kiln::portable::native
