// sign.out: -1, 0 or 1 by the sign of self, in self's dtype (NaN gives 0, Bool is its own sign).
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& sign_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!prepare_same_dtype(ctx, self, out)) return out;
  // (0 < x) - (x < 0): NaN gives 0 as in ATen; Bool values are their own sign.
  apply_unary(ctx, self, self.scalar_type(), out, [](auto zero) {
    using T = decltype(zero);
    return [](T x) { return static_cast<T>(static_cast<T>(T(0) < x) - static_cast<T>(x < T(0))); };
  });
  return out;
}

}  // namespace kiln::portable::native
