// tril.out: the lower triangle of each matrix in self's last two dims, the rest zero.
#include <cstdint>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& tril_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out) {
  return triangle(ctx, self, diagonal, true, "tril", out);
}

}  // namespace kiln::portable::native
