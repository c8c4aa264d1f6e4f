// gelu.out: x Phi(x), exactly (approximate='none') or by the tanh approximation; floating
// inputs only, out has self's dtype. Half and BFloat16 compute in float.
#include <string_view>

#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/double_math.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// x Phi(x) = 0.5 x (1 + erf(x / sqrt(2))), with Phi computed without cancelling for x < 0; both
// compute types vectorise, so double loops take the AVX-512 clone too.
struct GeluErf {
  static constexpr bool kVectorMath = true;
  KILN_ALWAYS_INLINE float operator()(float x) const { return x * normal_cdf_compute(x); }
  KILN_ALWAYS_INLINE double operator()(double x) const { return x * normal_cdf_compute(x); }
};

}  // namespace

Tensor& gelu_out(KernelRuntimeContext& ctx, const Tensor& self, std::string_view approximate,
                 Tensor& out) {
  const bool tanh = approximate == "tanh";
  KILN_KERNEL_CHECK_MSG(ctx, tanh || approximate == "none", InvalidArgument, out,
                        "approximate argument must be either none or tanh; got '%.*s'",
                        static_cast<int>(approximate.size()), approximate.data());
  if (!prepare_activation(ctx, self, out, "gelu", true)) return out;
  if (tanh) {
    // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    run_floating(ctx, self, out, [](auto zero) {
      using C = decltype(zero);
      return [](C x) {
        const C inner = C(0.7978845608028654) * (x + C(0.044715) * x * x * x);
        return C(0.5) * x * (C(1) + tanh_compute(inner));
      };
    });
  } else {
    run_floating(ctx, self, out, [](auto) { return GeluErf{}; });
  }
  return out;
}

}  // namespace kiln::portable::native
