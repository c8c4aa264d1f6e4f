// expm1.out: e^self - 1, accurate near 0; integer and bool inputs compute in Float, and out may be
// any floating dtype.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& expm1_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return expm1_compute(x); });
}

}  // namespace kiln::portable::native
