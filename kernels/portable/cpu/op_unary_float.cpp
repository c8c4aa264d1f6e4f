// Floating unary functions (exp, log, sqrt, tanh, erf, ...): integer and bool inputs compute in
// Float, the default dtype, as in ATen; the out tensor may be any floating dtype.
#include <cmath>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/unary.h"
#include "kernels/portable/cpu/util/vec_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Runs `fn` (a generic lambda over float and double) on self converted to its floating dtype,
// writing any floating out dtype.
template <typename Fn>
Tensor& floating_unary_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, Fn fn) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  const ScalarType self_type = self.scalar_type();
  const ScalarType common = is_floating_type(self_type) ? self_type : ScalarType::Float;
  if (!check_out_dtype_castable(ctx, out, common)) return out;
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  apply_unary<kFloatingTypes>(self, common, out, [&](auto) { return fn; });
  return out;
}

}  // namespace

Tensor& exp_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return exp_compute(x); });
}

Tensor& log_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return log_compute(x); });
}

Tensor& log1p_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return log1p_compute(x); });
}

Tensor& sqrt_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return std::sqrt(x); });
}

Tensor& rsqrt_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / std::sqrt(x);
  });
}

Tensor& reciprocal_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / x;
  });
}

Tensor& sin_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return std::sin(x); });
}

Tensor& cos_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return std::cos(x); });
}

Tensor& tanh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return tanh_compute(x); });
}

Tensor& sigmoid_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return sigmoid_compute(x); });
}

Tensor& erf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return erf_compute(x); });
}

}  // namespace kiln::portable::native
