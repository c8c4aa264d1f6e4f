// neg.out: -self in self's dtype (integers wrap); Bool is rejected, as in ATen.
#include <type_traits>

#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidType, out,
                        "Negation, the `-` operator, on a bool tensor is not supported; use "
                        "logical_not to invert a mask");
  if (!prepare_same_dtype(ctx, self, out)) return out;
  apply_same_dtype_unary(ctx, self, out, "neg.out", [](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      return SignBitOp<T, SignBit::kFlip>{};
    } else {
      return [](T x) { return wrapping_neg(x); };
    }
  });
  return out;
}

}  // namespace kiln::portable::native
