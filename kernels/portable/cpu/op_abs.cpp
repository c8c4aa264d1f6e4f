// abs.out: |self| in self's dtype; Bool is rejected and the most negative integer stays put, as in
// ATen.
#include <type_traits>

#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidType, out,
                        "abs is not implemented for Bool; convert self to a numeric dtype");
  if (!prepare_same_dtype(ctx, self, out)) return out;
  apply_same_dtype_unary(ctx, self, out, "abs.out", [](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      return SignBitOp<T, SignBit::kClear>{};
    } else {
      return [](T x) {
        if constexpr (std::is_unsigned_v<T>) {
          return x;
        } else {
          return x < T(0) ? wrapping_neg(x) : x;  // the most negative value stays put, as in ATen
        }
      };
    }
  });
  return out;
}

}  // namespace kiln::portable::native
