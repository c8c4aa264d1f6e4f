// quantized_decomposed::dequantize_per_token.out (ExecuTorch's quantized library):
// dequantization with one scale and zero point per token (the input's last dimension) into
// output_dtype (util/quantized/affine.h).
#include "kernels/portable/cpu/util/quantized/arguments.h"
#include "kernels/portable/cpu/util/quantized/kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& dequantize_per_token_out(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t quant_min,
                                 int64_t quant_max, ScalarType dtype, ScalarType output_dtype,
                                 Tensor& out) {
  int64_t tokens = 0;
  if (!check_per_token(ctx, input, scales, zero_points, quant_min, quant_max, dtype, &tokens)) {
    return out;
  }
  AffineParams params;
  params.scales = &scales;
  params.zero_points = &zero_points;
  run_dequantize(ctx, input, params, {1, tokens, input.size(input.dim() - 1)}, quant_min, quant_max,
                 dtype, output_dtype, out);
  return out;
}

}  // namespace kiln::portable::native
