// atan2.out: the angle of (other, self); integer and bool inputs compute in Float.
#include <cmath>

#include "kernels/portable/cpu/util/binary_ops.h"
#include "kernels/portable/cpu/util/broadcast.h"
#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/elementwise.h"
#include "kernels/portable/cpu/util/promotion.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& atan2_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, other, "other") ||
      !check_tensor(ctx, out, "out")) {
    return out;
  }
  ScalarType common = result_type(self, other);
  if (!is_floating_type(common)) common = ScalarType::Float;
  if (!check_out_dtype_castable(ctx, out, common)) return out;
  if (!resize_to_broadcast(ctx, self.sizes(), other.sizes(), out)) return out;
  apply_binary_op<kFloatingTypes>(ElementwiseInput::of(self), ElementwiseInput::of(other), common,
                                  out, [](auto zero) {
                                    using T = decltype(zero);
                                    return [](T a, T b) { return std::atan2(a, b); };
                                  });
  return out;
}

}  // namespace kiln::portable::native
