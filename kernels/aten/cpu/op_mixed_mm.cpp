// ATen mode: quantized_decomposed::mixed_mm.out with libtorch's ops: input times the weight
// dequantized in float (row p: (weight[p] - weight_zero_points[p]) * weight_scales[p]), rounded
// once to the input's dtype, under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <optional>

#include "kernels/aten/cpu/util/llm.h"
#include "kernels/portable/cpu/util/quantized/mixed_arguments.h"

namespace kiln::portable::native {

Tensor& mixed_mm_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                     const Tensor& weight_scales, const std::optional<Tensor>& weight_zero_points,
                     Tensor& out) {
  if (!check_mixed_mm_arguments(ctx, input, weight, weight_scales, weight_zero_points, out)) {
    return out;
  }
  at::Tensor result;
  if (aten_kernels::run_aten(ctx, [&] {
        at::Tensor w = weight.to(at::kFloat);
        if (weight_zero_points.has_value()) w = w - weight_zero_points->to(at::kFloat).unsqueeze(1);
        w = w * weight_scales.to(at::kFloat).unsqueeze(1);
        result = at::matmul(input.to(at::kFloat), w).to(input.scalar_type());
      })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
