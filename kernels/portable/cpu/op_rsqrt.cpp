// rsqrt.out: 1 / sqrt(self); integer and bool inputs compute in Float, and out may be any floating
// dtype.
#include <cmath>

#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& rsqrt_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return floating_unary_out(ctx, self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / std::sqrt(x);
  });
}

}  // namespace kiln::portable::native
