// kiln::rms_norm.out: vLLM's RMSNorm over the last dim, out = round(x / rms(x)) * weight, the
// mean square in float (docs/custom_ops.md).
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/rms_norm.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& rms_norm_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                     double epsilon, Tensor& out) {
  int64_t rows = 0;
  int64_t n = 0;
  if (!check_norm_arguments(ctx, input, weight, &rows, &n, /*row_views=*/true) ||
      !check_tensor(ctx, out, "out") || !check_out_dtype_is(ctx, out, input.scalar_type()) ||
      !resize_or_fail(ctx, out, input.sizes()) ||
      !check_row_activation(ctx, out, "out", /*is_out=*/true)) {
    return out;
  }
  rms_norm_rows(ctx, input, weight, out, rows, n, static_cast<float>(epsilon));
  return out;
}

}  // namespace kiln::portable::native
