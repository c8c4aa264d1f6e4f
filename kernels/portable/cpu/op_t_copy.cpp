// t_copy.out: a matrix transposed (a 0- or 1-dim self is copied as it is).
#include <cstdint>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& t_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() <= 2, InvalidArgument, out,
                        "t() expects a tensor with <= 2 dimensions, but self is %lldD",
                        static_cast<long long>(self.dim()));
  const int64_t perm[2] = {self.dim() == 2 ? 1 : 0, 0};
  return permuted_copy(ctx, self, perm, out);
}

}  // namespace kiln::portable::native
