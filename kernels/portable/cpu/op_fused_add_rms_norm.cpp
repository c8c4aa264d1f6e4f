// kiln::fused_add_rms_norm.out: vLLM's residual add + RMSNorm in one pass, as an out variant with
// two outs: residual_out = input + residual (the next layer's residual) and out = rms_norm of
// that sum. Passing out=input, residual_out=residual gives vLLM's in-place form.
#include <tuple>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/rms_norm.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

std::tuple<Tensor&, Tensor&> fused_add_rms_norm_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                    const Tensor& residual, const Tensor& weight,
                                                    double epsilon, Tensor& out,
                                                    Tensor& residual_out) {
  std::tuple<Tensor&, Tensor&> result(out, residual_out);
  int64_t rows = 0;
  int64_t n = 0;
  if (!check_add_norm_arguments(ctx, input, residual, weight, &rows, &n, /*row_views=*/true) ||
      !check_tensor(ctx, out, "out") || !check_tensor(ctx, residual_out, "residual_out") ||
      !check_out_dtype_is(ctx, out, input.scalar_type()) ||
      !check_out_dtype_is(ctx, residual_out, input.scalar_type()) ||
      !resize_or_fail(ctx, out, input.sizes()) ||
      !resize_or_fail(ctx, residual_out, input.sizes()) ||
      !check_row_activation(ctx, out, "out", /*is_out=*/true) ||
      !check_row_activation(ctx, residual_out, "residual_out", /*is_out=*/true)) {
    return result;
  }
  add_rms_norm_rows(ctx, input, residual, weight, out, residual_out, rows, n,
                    static_cast<float>(epsilon));
  return result;
}

}  // namespace kiln::portable::native
