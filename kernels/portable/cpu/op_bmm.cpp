// bmm.out: batched matrix products self[i] @ mat2[i] over the gemm.
#include <cstdint>

#include "kernels/portable/cpu/util/linalg/matmul.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& bmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  if (!check_batches(ctx, self, mat2, out, "bmm")) return out;
  batched_gemm(ctx, self, mat2, out, nullptr, self.scalar_type(), nullptr, Scalar(int64_t{1}),
               Scalar(int64_t{0}));
  return out;
}

}  // namespace kiln::portable::native
