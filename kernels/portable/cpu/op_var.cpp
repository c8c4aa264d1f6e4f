// var.correction_out and var.out: sum((x - mean)^2) / max(0, N - correction) over dims, in
// double; var.out's `unbiased` is correction 1 (else 0).
#include <optional>

#include "kernels/portable/cpu/util/reduce/variance.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& var_correction_out(KernelRuntimeContext& ctx, const Tensor& self,
                           std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                           bool keepdim, Tensor& out) {
  return var_std(ctx, self, dim, correction, keepdim, /*take_sqrt=*/false, out);
}

Tensor& var_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                bool unbiased, bool keepdim, Tensor& out) {
  const std::optional<Scalar> correction(Scalar(int64_t{unbiased ? 1 : 0}));
  return var_std(ctx, self, dim, correction, keepdim, /*take_sqrt=*/false, out);
}

}  // namespace kiln::portable::native
