// ATen mode: kiln::weight_int8_linear.out with libtorch's ops ((input @ weight^T) * scales + bias
// in float, rounded once), under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <optional>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

Tensor& weight_int8_linear_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                               const Tensor& scales, const std::optional<Tensor>& bias,
                               Tensor& out) {
  if (!check_int8_linear_arguments(ctx, input, weight, scales, bias)) return out;
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
