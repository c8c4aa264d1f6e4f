// leaky_relu.out: x for x > 0, else x * negative_slope; floating inputs only, out has self's
// dtype.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& leaky_relu_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& negative_slope,
                       Tensor& out) {
  if (!prepare_activation(ctx, self, out, "leaky_relu", true)) return out;
  run_floating(ctx, self, out, [&](auto zero) {
    using C = decltype(zero);
    const C slope = scalar_value<C>(negative_slope);
    return [slope](C x) { return select(x > C(0), x, x * slope); };
  });
  return out;
}

}  // namespace kiln::portable::native
