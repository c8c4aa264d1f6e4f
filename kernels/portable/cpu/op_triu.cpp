// triu.out: the upper triangle of each matrix in self's last two dims, the rest zero.
#include <cstdint>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& triu_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out) {
  return triangle(ctx, self, diagonal, false, "triu", out);
}

}  // namespace kiln::portable::native
