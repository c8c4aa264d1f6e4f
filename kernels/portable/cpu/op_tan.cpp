// tan.out: the tangent of self; integer and bool inputs compute in Float, and out may be any
// floating dtype.
#include <cmath>

#include "kernels/portable/cpu/util/unary_kernels.h"
#include "kernels/portable/cpu/util/vec_trig.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Float arguments beyond tan_float's reduction are rare inputs (util/unary.h): the blocks
// holding one take the C library's tan, which reduces any argument exactly.
struct Tan {
  static constexpr bool kHasRareInputs = true;
  float operator()(float x) const { return tan_float(x); }
  double operator()(double x) const { return std::tan(x); }
  bool rare(float x) const { return std::fabs(x) >= kTanReduceLimit; }
  bool rare(double) const { return false; }
  float exact(float x) const { return std::tan(x); }
  double exact(double x) const { return std::tan(x); }
};

}  // namespace

Tensor& tan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, Tan{});
}

}  // namespace kiln::portable::native
