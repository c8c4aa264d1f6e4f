// ATen mode: quantized_decomposed::add.out with libtorch's ops, rounding where ExecuTorch's kernel
// and the portable one round (kernels/portable/cpu/util/quantized/add.h), under the name
// custom_ops.yaml binds. libtorch serves aten::add itself.
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llm.h"
#include "kernels/portable/cpu/util/quantized/add.h"

namespace kiln::portable::native {
namespace {

// float((q - zero_point) * float(scale)): the double product of these values is exact or
// rounds as ExecuTorch's does, then rounds once to float.
at::Tensor dequantize(const at::Tensor& q, const QuantizedOperand& params) {
  const float scale = static_cast<float>(params.scale);
  return ((q.to(at::kDouble) - static_cast<double>(params.zero_point)) * static_cast<double>(scale))
      .to(at::kFloat);
}

// out_zero_point + nearbyint(float(inv * sum)), clamped to the range (NaN to quant_min).
at::Tensor quantize(const at::Tensor& sum, const QuantizedOperand& params, at::ScalarType dtype) {
  const float inverse = 1.0f / static_cast<float>(params.scale);
  const at::Tensor scaled = sum * at::scalar_tensor(inverse, at::kFloat);
  const at::Tensor q = at::round(scaled) + static_cast<float>(params.zero_point);
  const at::Tensor low = at::scalar_tensor(static_cast<float>(params.quant_min), at::kFloat);
  const at::Tensor clamped = q.clamp(params.quant_min, params.quant_max);
  return at::where(at::isnan(q), low, clamped).to(dtype);
}

}  // namespace

Tensor& quantized_add_out(KernelRuntimeContext& ctx, const Tensor& a, double a_scale,
                          int64_t a_zero_point, int64_t a_quant_min, int64_t a_quant_max,
                          const Tensor& b, double b_scale, int64_t b_zero_point,
                          int64_t b_quant_min, int64_t b_quant_max, double out_scale,
                          int64_t out_zero_point, int64_t out_quant_min, int64_t out_quant_max,
                          Tensor& out) {
  const QuantizedOperand a_params = {a_scale, a_zero_point, a_quant_min, a_quant_max};
  const QuantizedOperand b_params = {b_scale, b_zero_point, b_quant_min, b_quant_max};
  const QuantizedOperand out_params = {out_scale, out_zero_point, out_quant_min, out_quant_max};
  if (!check_quantized_add_arguments(ctx, a, a_params, b, b_params, out_params, out)) return out;
  at::Tensor result;
  if (aten_kernels::run_aten(ctx, [&] {
        result = quantize(dequantize(a, a_params) + dequantize(b, b_params), out_params,
                          a.scalar_type());
      })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
