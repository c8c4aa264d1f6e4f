// log2.out: the base-2 logarithm of self; integer and bool inputs compute in Float, and out may be
// any floating dtype.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/log.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& log2_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, Log2{});
}

}  // namespace kiln::portable::native
