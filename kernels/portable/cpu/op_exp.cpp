// exp.out: e^self; integer and bool inputs compute in Float, and out may be any floating
// dtype.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& exp_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return exp_compute(x); });
}

}  // namespace kiln::portable::native
