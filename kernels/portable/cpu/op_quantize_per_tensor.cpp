// quantized_decomposed::quantize_per_tensor.out / .Tensor_out (ExecuTorch's quantized library):
// q = clamp(zero_point + round(x / scale), quant_min, quant_max) with one scale and zero point
// for the whole tensor, given as numbers or as one-element tensors (util/quantized/affine.h).
#include "kernels/portable/cpu/util/quantized/arguments.h"
#include "kernels/portable/cpu/util/quantized/kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& quantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                ScalarType dtype, Tensor& out) {
  if (!check_quant_range(ctx, quant_min, quant_max, dtype) ||
      !check_scale_value(ctx, scale, "scale") ||
      !check_zero_point_value(ctx, zero_point, quant_min, quant_max, "zero_point")) {
    return out;
  }
  AffineParams params;
  params.scale = scale;
  params.zero_point = zero_point;
  run_quantize(ctx, input, params, {1, 1, input.numel()}, quant_min, quant_max, dtype, out);
  return out;
}

Tensor& quantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                       const Tensor& scale, const Tensor& zero_point,
                                       int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                       Tensor& out) {
  AffineParams params;
  if (!check_quant_range(ctx, quant_min, quant_max, dtype) ||
      !read_tensor_qparams(ctx, scale, zero_point, quant_min, quant_max, &params)) {
    return out;
  }
  run_quantize(ctx, input, params, {1, 1, input.numel()}, quant_min, quant_max, dtype, out);
  return out;
}

}  // namespace kiln::portable::native
