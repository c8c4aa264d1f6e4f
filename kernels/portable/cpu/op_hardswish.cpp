// hardswish.out: x * clamp(x + 3, 0, 6) / 6; floating inputs only, out has self's dtype.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& hardswish_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!prepare_activation(ctx, self, out, "hardswish", true)) return out;
  run_floating(ctx, self, out, [](auto zero) {
    using C = decltype(zero);
    // max/min that keep NaN: x + 3 < 0 is false for NaN.
    return [](C x) { return x * clamp_value(x + C(3), C(0), C(6)) / C(6); };
  });
  return out;
}

}  // namespace kiln::portable::native
