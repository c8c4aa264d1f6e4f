// ATen mode: quantized_decomposed::mixed_linear.out with libtorch's ops: input times the
// transposed weight dequantized in float ((weight - zero point) * scale, a scale per row or per
// group of a row's columns), rounded once to out's dtype, under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <optional>

#include "kernels/aten/cpu/util/llm.h"
#include "kernels/portable/cpu/util/quantized/mixed_arguments.h"

namespace kiln::portable::native {
namespace {

// Per-row ([n]) or per-group ([n, groups]) parameters as a float [n, 1] or [n, k] tensor that
// broadcasts against the weight [n, k].
at::Tensor per_column(const at::Tensor& parameters, const ScaleGroups& layout, int64_t k) {
  const at::Tensor values = parameters.to(at::kFloat);
  if (parameters.dim() == 1) return values.unsqueeze(1);
  return values.repeat_interleave(layout.group_size, 1).narrow(1, 0, k);
}

}  // namespace

Tensor& mixed_linear_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                         const Tensor& weight_scales,
                         const std::optional<Tensor>& weight_zero_points,
                         std::optional<ScalarType> dtype, Tensor& out) {
  ScaleGroups layout;
  if (!check_mixed_linear_arguments(ctx, input, weight, weight_scales, weight_zero_points, dtype,
                                    out, &layout)) {
    return out;
  }
  const int64_t k = weight.size(1);
  at::Tensor result;
  if (aten_kernels::run_aten(ctx, [&] {
        at::Tensor w = weight.to(at::kFloat);
        if (weight_zero_points.has_value()) w = w - per_column(*weight_zero_points, layout, k);
        w = w * per_column(weight_scales, layout, k);
        result = at::matmul(input.to(at::kFloat), w.t()).to(out.scalar_type());
      })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
