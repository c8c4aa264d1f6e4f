// trunc.out: self rounded toward zero; integer inputs are copied unchanged and Bool is rejected,
// as in ATen. out has self's dtype.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& trunc_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_out(ctx, self, out, "trunc", [](auto x) {
    return select(x < decltype(x)(0), ceil_value(x), floor_value(x));
  });
}

}  // namespace kiln::portable::native
