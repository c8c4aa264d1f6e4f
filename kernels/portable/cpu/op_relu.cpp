// relu.out: out = max(self, 0), keeping NaN; every dtype but Bool.
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/elementwise/unary_driver.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidType, out,
                        "Boolean inputs not supported for relu; convert self to an integer or "
                        "floating dtype first");
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  apply_same_dtype_unary(ctx, self, out, "relu.out", [](auto zero) {
    using T = decltype(zero);
    // `x < 0` is false for NaN, so NaN passes through as in ATen.
    return [](T x) {
      if constexpr (std::is_unsigned_v<T>) {
        return x;
      } else if constexpr (std::is_integral_v<T>) {
        return x < T(0) ? T(0) : x;
      } else {
        return select(x < T(0), T(0), x);  // a bit select, so float loops vectorise
      }
    };
  });
  return out;
}

}  // namespace kiln::portable::native
