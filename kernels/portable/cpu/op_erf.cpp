// erf.out: the error function of self; integer and bool inputs compute in Float, and out may be any
// floating dtype.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "kernels/portable/cpu/util/vec/double_math.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Both compute types vectorise (erf_float, erf_double), so double loops take the AVX-512 clone
// too.
struct Erf {
  static constexpr bool kVectorMath = true;
  KILN_ALWAYS_INLINE float operator()(float x) const { return erf_compute(x); }
  KILN_ALWAYS_INLINE double operator()(double x) const { return erf_compute(x); }
};

}  // namespace

Tensor& erf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, Erf{});
}

}  // namespace kiln::portable::native
