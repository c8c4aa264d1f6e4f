// elu.out: scale * x for x > 0, else alpha * scale * (e^(x * input_scale) - 1); floating inputs
// only, out has self's dtype.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& elu_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& alpha,
                const Scalar& scale, const Scalar& input_scale, Tensor& out) {
  if (!prepare_activation(ctx, self, out, "elu", true)) return out;
  run_floating(ctx, self, out, [&](auto zero) {
    using C = decltype(zero);
    const C negative_scale = scalar_value<C>(alpha) * scalar_value<C>(scale);
    const C positive_scale = scalar_value<C>(scale);
    const C input = scalar_value<C>(input_scale);
    return [=](C x) {
      return select(x <= C(0), expm1_compute(x * input) * negative_scale, x * positive_scale);
    };
  });
  return out;
}

}  // namespace kiln::portable::native
