// baddbmm.out: beta * self + alpha * batch1[i] @ batch2[i] for every batch, over the gemm.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/linalg/matmul.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& baddbmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& batch1,
                    const Tensor& batch2, const Scalar& beta, const Scalar& alpha, Tensor& out) {
  if (!check_tensor(ctx, self, "self")) return out;
  KILN_KERNEL_CHECK_MSG(
      ctx, self.scalar_type() == batch1.scalar_type() && self.scalar_type() == batch2.scalar_type(),
      InvalidArgument, out, "Input dtypes must be the same, got: input %s, batch1: %s, batch2: %s",
      to_string(self.scalar_type()), to_string(batch1.scalar_type()),
      to_string(batch2.scalar_type()));
  if (batch1.dim() == 3 && batch2.dim() == 3) {
    const SizesType target[3] = {batch1.size(0), batch1.size(1), batch2.size(2)};
    int64_t strides[3];
    if (!expand_strides(ctx, self.sizes(), {target, 3}, strides)) return out;
  }
  if (!check_batches(ctx, batch1, batch2, out, "baddbmm")) return out;
  int64_t c_strides[3];
  if (!expand_strides(ctx, self.sizes(), out.sizes(), c_strides)) return out;
  batched_gemm(ctx, batch1, batch2, out, self.const_data_ptr(), self.scalar_type(), c_strides,
               alpha, beta);
  return out;
}

}  // namespace kiln::portable::native
