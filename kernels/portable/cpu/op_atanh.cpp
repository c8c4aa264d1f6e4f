// atanh.out: the inverse hyperbolic tangent of self (+-inf at +-1, NaN beyond); integer and bool
// inputs compute in Float, and out may be any floating dtype.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/trig.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& atanh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return atanh_compute(x); });
}

}  // namespace kiln::portable::native
