// isnan.out: whether each element of self is NaN, as Bool (integers never are).
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& isnan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return predicate_out(ctx, self, out, [](auto x) { return x != x; });
}

}  // namespace kiln::portable::native
