// ATen mode: quantized_decomposed::choose_qparams.Tensor_out, the range from libtorch's aminmax
// and the parameters from the portable kernels' rule (qparams.h), under the name
// custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <tuple>

#include "kernels/aten/cpu/util/quantized.h"
#include "kernels/portable/cpu/util/quantized/qparams.h"

namespace kiln::portable::native {

std::tuple<Tensor&, Tensor&> choose_qparams_tensor_out(KernelRuntimeContext& ctx,
                                                       const Tensor& input, int64_t quant_min,
                                                       int64_t quant_max, double eps,
                                                       ScalarType dtype, Tensor& scale_out,
                                                       Tensor& zero_point_out) {
  (void)eps;
  const std::tuple<Tensor&, Tensor&> outs{scale_out, zero_point_out};
  if (!check_choose_qparams_arguments(ctx, input, quant_min, quant_max, dtype, scale_out,
                                      zero_point_out)) {
    return outs;
  }
  bool finite = false;
  float min = 0.0f;
  float max = 0.0f;
  if (!aten_kernels::run_aten(ctx, [&] {
        const at::Tensor x = input.to(at::kFloat);
        finite = at::isfinite(x).all().item<bool>();
        const auto [lo, hi] = at::aminmax(x);
        min = lo.item<float>();
        max = hi.item<float>();
      })) {
    return outs;
  }
  KILN_KERNEL_CHECK_MSG(
      ctx, finite, InvalidArgument, outs,
      "input holds a NaN or infinite value; quantization parameters need a finite range");
  const ChosenQParams chosen = choose_qparams_for_range(min, max, quant_min, quant_max);
  if (aten_kernels::store(ctx, at::full({1}, chosen.scale, at::kDouble), scale_out)) {
    aten_kernels::store(ctx, at::full({1}, chosen.zero_point, at::kLong), zero_point_out);
  }
  return outs;
}

}  // namespace kiln::portable::native
