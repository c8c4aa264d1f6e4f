#include "kernels/portable/cpu/util/quantized/kernels.h"

#include "kernels/portable/cpu/util/quantized/arguments.h"

namespace kiln::portable {
namespace {

// out takes input's shape and must then be contiguous, as the loops write it.
bool size_out_like(KernelRuntimeContext& ctx, const Tensor& input, Tensor& out) {
  return resize_or_fail(ctx, out, input.sizes()) && check_contiguous(ctx, out, "out");
}

}  // namespace

void run_quantize(KernelRuntimeContext& ctx, const Tensor& input, const AffineParams& params,
                  AffineBlocks blocks, int64_t quant_min, int64_t quant_max, ScalarType dtype,
                  Tensor& out) {
  if (!check_quantize_arguments(ctx, input, quant_min, quant_max, dtype, out) ||
      !size_out_like(ctx, input, out)) {
    return;
  }
  quantize_affine(ctx, input, params, blocks, quant_min, quant_max, out);
}

void run_dequantize(KernelRuntimeContext& ctx, const Tensor& input, const AffineParams& params,
                    AffineBlocks blocks, int64_t quant_min, int64_t quant_max, ScalarType dtype,
                    std::optional<ScalarType> out_dtype, Tensor& out) {
  if (!check_dequantize_arguments(ctx, input, quant_min, quant_max, dtype, out_dtype, out) ||
      !size_out_like(ctx, input, out)) {
    return;
  }
  // A fused activation after the dequantization (relu, hardtanh: PT2E programs dequantize
  // before them) is applied as the values are stored, and the executor skips it.
  dequantize_affine(ctx, input, params, blocks, ctx.take_output_clamp(out.scalar_type()), out);
}

AffineParams per_tensor_params(double scale, int64_t zero_point) {
  AffineParams params;
  params.scale = scale;
  params.zero_point = zero_point;
  return params;
}

AffineParams per_tensor_params(const Tensor& scale, const Tensor& zero_point) {
  return per_tensor_params(scale_at(scale, 0), index_at(zero_point, 0));
}

}  // namespace kiln::portable
