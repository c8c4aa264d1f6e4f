// tan.out: the tangent of self; integer and bool inputs compute in Float, and out may be any
// floating dtype.
#include "kernels/portable/cpu/util/elementwise/trig_ops.h"
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& tan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, Tan{});
}

}  // namespace kiln::portable::native
