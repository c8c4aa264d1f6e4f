// logical_not.out: self == 0 elementwise; out is Bool by default and may be of any dtype.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& logical_not_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  // Any out dtype: the Bool result converts to it.
  if (!check_unary_tensors(ctx, self, out) || !resize_or_fail(ctx, out, self.sizes())) return out;
  apply_unary(ctx, self, self.scalar_type(), out, [](auto zero) {
    using T = decltype(zero);
    return [](T x) { return static_cast<T>(x == T(0)); };
  });
  return out;
}

}  // namespace kiln::portable::native
