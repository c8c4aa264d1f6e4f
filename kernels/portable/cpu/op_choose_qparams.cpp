// quantized_decomposed::choose_qparams.Tensor_out (ExecuTorch's quantized library): the scale
// (Double) and zero point (Long) that quantize input's whole range [min, max] to [quant_min,
// quant_max], by ExecuTorch's rule (util/quantized/qparams.h; like ExecuTorch, eps is unused).
// The dynamic quantization of activations computes its parameters with it at run time.
#include <tuple>

#include "kernels/portable/cpu/util/quantized/arguments.h"
#include "kernels/portable/cpu/util/quantized/choose.h"
#include "kernels/portable/cpu/util/quantized/qparams.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

std::tuple<Tensor&, Tensor&> choose_qparams_tensor_out(KernelRuntimeContext& ctx,
                                                       const Tensor& input, int64_t quant_min,
                                                       int64_t quant_max, double eps,
                                                       ScalarType dtype, Tensor& scale_out,
                                                       Tensor& zero_point_out) {
  (void)eps;
  const std::tuple<Tensor&, Tensor&> outs{scale_out, zero_point_out};
  const SizesType one[] = {1};
  if (!check_choose_qparams_arguments(ctx, input, quant_min, quant_max, dtype, scale_out,
                                      zero_point_out) ||
      !resize_or_fail(ctx, scale_out, {one, 1}) || !resize_or_fail(ctx, zero_point_out, {one, 1})) {
    return outs;
  }
  float min = 0.0f;
  float max = 0.0f;
  KILN_KERNEL_CHECK_MSG(
      ctx, finite_range(input.const_data_ptr(), input.scalar_type(), input.numel(), &min, &max),
      InvalidArgument, outs,
      "input holds a NaN or infinite value; quantization parameters need a finite range");
  const ChosenQParams chosen = choose_qparams_for_range(min, max, quant_min, quant_max);
  scale_out.mutable_data_ptr<double>()[0] = chosen.scale;
  zero_point_out.mutable_data_ptr<int64_t>()[0] = chosen.zero_point;
  return outs;
}

}  // namespace kiln::portable::native
