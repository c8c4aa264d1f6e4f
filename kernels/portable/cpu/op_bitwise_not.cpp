// bitwise_not.out: ~self on integers, logical not on Bool; floating dtypes are rejected.
#include "kernels/portable/cpu/util/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& bitwise_not_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, !is_floating_type(dtype), InvalidType, out,
                        "bitwise_not is not implemented for dtype %s; pass an integer or Bool "
                        "tensor",
                        to_string(dtype));
  if (!prepare_same_dtype(ctx, self, out)) return out;
  const bool is_bool = dtype == ScalarType::Bool;
  apply_unary<kIntegralTypes>(ctx, self, dtype, out, [is_bool](auto zero) {
    using T = decltype(zero);
    // Bool computes in int64 holding 0 or 1, where ~ would set every bit.
    return [is_bool](T x) { return is_bool ? static_cast<T>(x == T(0)) : static_cast<T>(~x); };
  });
  return out;
}

}  // namespace kiln::portable::native
