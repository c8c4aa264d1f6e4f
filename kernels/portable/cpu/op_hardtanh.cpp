// hardtanh.out: self clamped to [min_val, max_val] in self's dtype; every dtype but Bool.
#include <cstdint>

#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& hardtanh_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& min_val,
                     const Scalar& max_val, Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, dtype != ScalarType::Bool, InvalidType, out,
                        "Bool inputs not supported for hardtanh; convert self to a numeric dtype");
  KILN_KERNEL_CHECK_MSG(
      ctx,
      dtype != ScalarType::Byte ||
          (scalar_value<int64_t>(min_val) >= 0 && scalar_value<int64_t>(max_val) >= 0),
      InvalidArgument, out,
      "cannot do hardtanh on an unsigned type with negative limits; pass limits >= 0");
  if (!prepare_activation(ctx, self, out, "hardtanh", false)) return out;
  if (!check_scalar_converts(ctx, min_val, dtype, "min_val") ||
      !check_scalar_converts(ctx, max_val, dtype, "max_val")) {
    return out;
  }
  apply_unary(ctx, self, dtype, out, [&](auto zero) {
    using T = decltype(zero);
    return ClampOp<T>(scalar_value<T>(min_val), scalar_value<T>(max_val));
  });
  return out;
}

}  // namespace kiln::portable::native
