// silu.out: x * sigmoid(x); floating inputs only, out has self's dtype. Half and BFloat16 compute
// in float.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& silu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!prepare_activation(ctx, self, out, "silu", true)) return out;
  run_floating(ctx, self, out, [](auto zero) {
    using C = decltype(zero);
    return [](C x) { return silu_compute(x); };
  });
  return out;
}

}  // namespace kiln::portable::native
