// logit.out: log(p / (1 - p)) of self, with p clamped to [eps, 1 - eps] when eps is given;
// integer and bool inputs compute in Float, and out may be any floating dtype.
#include <cmath>
#include <optional>

#include "kernels/portable/cpu/util/unary_kernels.h"
#include "kernels/portable/cpu/util/vec_math.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// As ATen computes it: eps converted to the op's dtype, 1 - eps, 1 - p and the quotient each
// rounded to that dtype (`round`: identity, or to Half or BFloat16). A negative eps (or none)
// clamps nothing, and neither does a NaN one (no comparison with it holds).
template <typename Round>
Tensor& logit_rounded(KernelRuntimeContext& ctx, const Tensor& self, std::optional<double> eps,
                      Tensor& out, Round round) {
  const double eps_d = eps.value_or(-1.0);
  const float eps_f = round(static_cast<float>(eps_d));
  const float lo_f = eps_f < 0.0f ? -INFINITY : eps_f;
  const float hi_f = eps_f < 0.0f ? INFINITY : round(1.0f - eps_f);
  const double lo_d = eps_d < 0.0 ? -INFINITY : eps_d;
  const double hi_d = eps_d < 0.0 ? INFINITY : 1.0 - eps_d;
  return floating_unary_out(ctx, self, out, [=](auto p) {
    using C = decltype(p);
    C lo, hi;
    if constexpr (std::is_same_v<C, float>) {
      lo = lo_f, hi = hi_f;
    } else {
      lo = lo_d, hi = hi_d;
    }
    // NaN stays NaN: it compares false with both limits.
    const C x = select(p < lo, lo, select(p > hi, hi, p));
    if constexpr (std::is_same_v<C, float>) {
      return log_compute(round(x / round(1.0f - x)));
    } else {
      return log_compute(x / (1.0 - x));
    }
  });
}

}  // namespace

Tensor& logit_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<double> eps,
                  Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  if (dtype == ScalarType::Half) {
    return logit_rounded(ctx, self, eps, out, [](float v) {
      return kiln::detail::half_bits_to_float(kiln::detail::float_to_half_bits(v));
    });
  }
  if (dtype == ScalarType::BFloat16) {
    return logit_rounded(ctx, self, eps, out, [](float v) {
      return kiln::detail::bfloat16_bits_to_float(kiln::detail::float_to_bfloat16_bits(v));
    });
  }
  return logit_rounded(ctx, self, eps, out, [](float v) { return v; });
}

}  // namespace kiln::portable::native
