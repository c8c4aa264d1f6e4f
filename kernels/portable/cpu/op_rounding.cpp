// floor, ceil, round (half to even, optionally to `decimals` places) and trunc; integer inputs
// are copied unchanged and Bool is rejected, as in ATen. out has self's dtype.
#include <cmath>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/unary.h"
#include "kernels/portable/cpu/util/vec_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Applies `fn` (a generic lambda over float and double) to floating self; integers are copied.
template <typename Fn>
Tensor& rounding_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, const char* op,
                     Fn fn) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, dtype != ScalarType::Bool, InvalidType, out,
                        "%s is not implemented for Bool; convert self to a numeric dtype", op);
  if (!check_out_dtype_is(ctx, out, dtype) || !resize_or_fail(ctx, out, self.sizes())) return out;
  if (is_floating_type(dtype)) {
    apply_unary<kFloatingTypes>(self, dtype, out, [&](auto) { return fn; });
  } else {
    apply_unary<kIntegralTypes>(self, dtype, out, [](auto zero) {
      using T = decltype(zero);
      return [](T x) { return x; };
    });
  }
  return out;
}

// floor and ceil from round-half-even (which vectorises with default flags, unlike std::floor):
// exact for every value, keeping -0, infinities and NaN.
template <typename T>
inline T floor_value(T x) {
  const T r = std::nearbyint(x);
  return r - select(r > x, T(1), T(0));
}
template <typename T>
inline T ceil_value(T x) {
  const T r = std::nearbyint(x);
  return r + select(r < x, T(1), T(0));
}

}  // namespace

Tensor& floor_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_out(ctx, self, out, "floor", [](auto x) { return floor_value(x); });
}

Tensor& ceil_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_out(ctx, self, out, "ceil", [](auto x) { return ceil_value(x); });
}

Tensor& trunc_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_out(ctx, self, out, "trunc", [](auto x) {
    return select(x < decltype(x)(0), ceil_value(x), floor_value(x));
  });
}

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
  apply_unary<kFloatingTypes>(self, dtype, out, [&](auto zero) {
    using C = decltype(zero);
    const C scale = static_cast<C>(power);
    return [scale, negative](C x) {
      return negative ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
    };
  });
  return out;
}

}  // namespace kiln::portable::native
