// ATen mode: kiln::weight_int8_linear.out with libtorch's ops ((input @ weight^T) * scales + bias
// in float, rounded once), under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <optional>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

Tensor& weight_int8_linear_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                               const Tensor& scales, const std::optional<Tensor>& bias,
                               Tensor& out) {
  if (!aten_kernels::check_activation(ctx, input, "input") ||
      !aten_kernels::check_dtype(ctx, weight, "weight", c10::kChar) ||
      !aten_kernels::check_rank(ctx, weight, "weight", 2) ||
      !aten_kernels::check_rank(ctx, scales, "scales", 1, weight.size(0)) ||
      (bias.has_value() && (!aten_kernels::check_dtype(ctx, *bias, "bias", input.scalar_type()) ||
                            !aten_kernels::check_rank(ctx, *bias, "bias", 1, weight.size(0))))) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(
      ctx, scales.scalar_type() == c10::kFloat || scales.scalar_type() == input.scalar_type(),
      InvalidType, out, "scales has dtype %s; pass Float scales or the input's dtype %s",
      c10::toString(scales.scalar_type()), c10::toString(input.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, input.dim() >= 1 && input.size(-1) == weight.size(1), InvalidArgument,
                        out, "input has shape %s but weight has shape %s",
                        c10::str(input.sizes()).c_str(), c10::str(weight.sizes()).c_str());
  at::Tensor result;
  if (aten_kernels::run_aten(ctx, [&] {
        at::Tensor y =
            at::matmul(input.to(at::kFloat), weight.to(at::kFloat).t()) * scales.to(at::kFloat);
        if (bias.has_value()) y = y + bias->to(at::kFloat);
        result = y.to(input.scalar_type());
      })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
