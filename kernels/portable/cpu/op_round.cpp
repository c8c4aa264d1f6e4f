// round.out and round.decimals_out: self rounded half to even, optionally to `decimals` places;
// integer inputs are copied unchanged and Bool is rejected, as in ATen. out has self's dtype.
#include <cmath>
#include <cstdint>

#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& round_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_out(ctx, self, out, "round", [](auto x) { return std::nearbyint(x); });
}

Tensor& round_decimals_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t decimals,
                           Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(dtype), InvalidType, out,
                        "round with decimals is not implemented for dtype %s; pass a floating "
                        "point tensor",
                        to_string(dtype));
  if (!check_out_dtype_is(ctx, out, dtype) || !resize_or_fail(ctx, out, self.sizes())) return out;
  // As ATen: scale by 10^|decimals| in the compute type, round half to even, scale back (an
  // overflowing power gives NaN, as there).
  const bool negative = decimals < 0;
  const double power = std::pow(10.0, static_cast<double>(negative ? -decimals : decimals));
  apply_unary<kFloatingTypes>(ctx, self, dtype, out, [&](auto zero) {
    using C = decltype(zero);
    const C scale = static_cast<C>(power);
    // Both computed and one selected: a branch would keep the loop from vectorising.
    return [scale, negative](C x) {
      return select(negative, std::nearbyint(x / scale) * scale, std::nearbyint(x * scale) / scale);
    };
  });
  return out;
}

}  // namespace kiln::portable::native
