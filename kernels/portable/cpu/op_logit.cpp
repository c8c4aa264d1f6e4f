// logit.out: log(p / (1 - p)) of self, with p clamped to [eps, 1 - eps] when eps is given;
// integer and bool inputs compute in Float, and out may be any floating dtype.
#include <cfloat>
#include <cmath>
#include <optional>

#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "kernels/portable/cpu/util/vec/log.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// The clamp limits as ATen computes them: eps converted to the op's dtype and 1 - eps, each
// rounded to that dtype (`round`: identity, or to Half or BFloat16). A negative eps (or none)
// clamps nothing, and neither does a NaN one (no comparison with it holds).
struct Limits {
  float lo_f, hi_f;
  double lo_d, hi_d;
};
template <typename Round>
Limits logit_limits(std::optional<double> eps, Round round) {
  const double eps_d = eps.value_or(-1.0);
  const float eps_f = round(static_cast<float>(eps_d));
  return {eps_f < 0.0f ? -INFINITY : eps_f, eps_f < 0.0f ? INFINITY : round(1.0f - eps_f),
          eps_d < 0.0 ? -INFINITY : eps_d, eps_d < 0.0 ? INFINITY : 1.0 - eps_d};
}

// p clamped to [lo, hi]; NaN stays NaN: it compares false with both limits.
template <typename C>
KILN_ALWAYS_INLINE C clamp_probability(C p, C lo, C hi) {
  return select(p < lo, lo, select(p > hi, hi, p));
}

// Float and Double: the quotient x / (1 - x) is a positive normal number exactly when the
// clamped x is in [smallest normal, 1) (then 1 - x >= 2^-53 and the quotient stays finite), so
// log_normal's vector formula takes those blocks; any other x (0, 1, outside [0, 1], NaN) makes
// its block rare, and the edge-complete logarithm computes it.
struct Logit {
  static constexpr bool kHasRareInputs = true;
  static constexpr bool kExactVectorises = true;
  static constexpr bool kVectorMath = true;
  Limits limits;

  KILN_ALWAYS_INLINE float clamped(float p) const {
    return clamp_probability(p, limits.lo_f, limits.hi_f);
  }
  KILN_ALWAYS_INLINE double clamped(double p) const {
    return clamp_probability(p, limits.lo_d, limits.hi_d);
  }
  template <typename C>
  KILN_ALWAYS_INLINE C operator()(C p) const {
    const C x = clamped(p);
    return log_normal(x / (C(1) - x));
  }
  template <typename C>
  bool rare(C p) const {
    const C x = clamped(p);
    constexpr C kSmallestNormal = std::is_same_v<C, float> ? FLT_MIN : DBL_MIN;
    return !((x >= kSmallestNormal) & (x < C(1)));
  }
  float exact(float p) const {
    const float x = clamped(p);
    return log_float(x / (1.0f - x));
  }
  double exact(double p) const {
    const double x = clamped(p);
    return std::log(x / (1.0 - x));
  }
};

// Half and BFloat16 compute in float with 1 - p and the quotient each rounded to the dtype, as
// ATen does.
template <typename Round>
Tensor& logit_rounded(KernelRuntimeContext& ctx, const Tensor& self, std::optional<double> eps,
                      Tensor& out, Round round) {
  const Limits limits = logit_limits(eps, round);
  return floating_unary_out(ctx, self, out, [=](auto p) {
    using C = decltype(p);
    if constexpr (std::is_same_v<C, float>) {
      const float x = clamp_probability(p, limits.lo_f, limits.hi_f);
      return log_compute(round(x / round(1.0f - x)));
    } else {
      const double x = clamp_probability(p, limits.lo_d, limits.hi_d);
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
  return floating_unary_out(ctx, self, out, Logit{logit_limits(eps, [](float v) { return v; })});
}

}  // namespace kiln::portable::native
