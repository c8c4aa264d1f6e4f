// cos.out: the cosine of self; integer and bool inputs compute in Float, and out may be any
// floating dtype.
#include <cmath>

#include "kernels/portable/cpu/util/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& cos_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) { return std::cos(x); });
}

}  // namespace kiln::portable::native
