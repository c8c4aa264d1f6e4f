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

bool read_tensor_qparams(KernelRuntimeContext& ctx, const Tensor& scale, const Tensor& zero_point,
                         int64_t quant_min, int64_t quant_max, AffineParams* params) {
  if (!check_qparam_tensors(ctx, scale, zero_point, 1, "a per-tensor quantization's count",
                            quant_min, quant_max)) {
    return false;
  }
  params->scale = scale_at(scale, 0);
  params->zero_point = index_at(zero_point, 0);
  return true;
}

}  // namespace kiln::portable
