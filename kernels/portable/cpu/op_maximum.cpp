// maximum.out: the elementwise larger of self and other; NaN propagates.
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& maximum_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                    Tensor& out) {
  return extremum_out(ctx, self, other, out, [](auto a, auto b) { return a > b; });
}

}  // namespace kiln::portable::native
