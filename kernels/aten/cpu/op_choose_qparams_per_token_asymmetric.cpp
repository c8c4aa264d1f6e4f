// ATen mode: quantized_decomposed::choose_qparams_per_token_asymmetric.out, each token's range
// from libtorch's amin / amax and its parameters from the portable kernels' rule (qparams.h),
// under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <tuple>
#include <vector>

#include "kernels/aten/cpu/util/quantized.h"
#include "kernels/portable/cpu/util/quantized/qparams.h"

namespace kiln::portable::native {

std::tuple<Tensor&, Tensor&> choose_qparams_per_token_asymmetric_out(KernelRuntimeContext& ctx,
                                                                     const Tensor& input,
                                                                     ScalarType dtype,
                                                                     Tensor& scale_out,
                                                                     Tensor& zero_point_out) {
  const std::tuple<Tensor&, Tensor&> outs{scale_out, zero_point_out};
  int64_t tokens = 0;
  if (!check_per_token_qparams_arguments(ctx, input, dtype, scale_out, zero_point_out, &tokens)) {
    return outs;
  }
  bool finite = false;
  at::Tensor scales;
  at::Tensor zero_points;
  if (!aten_kernels::run_aten(ctx, [&] {
        const at::Tensor x = input.to(at::kFloat);
        finite = at::isfinite(x).all().item<bool>();
        std::vector<int64_t> sizes = input.sizes().vec();
        sizes.back() = 1;
        scales = at::empty(sizes, at::kDouble);
        zero_points = at::empty(sizes, at::kLong);
        if (tokens == 0 || !finite) return;
        const at::Tensor lo = x.amin(-1).contiguous();
        const at::Tensor hi = x.amax(-1).contiguous();
        for (int64_t t = 0; t < tokens; ++t) {
          const ChosenQParams chosen =
              choose_qparams_for_range(lo.data_ptr<float>()[t], hi.data_ptr<float>()[t], -128, 127);
          scales.data_ptr<double>()[t] = chosen.scale;
          zero_points.data_ptr<int64_t>()[t] = chosen.zero_point;
        }
      })) {
    return outs;
  }
  KILN_KERNEL_CHECK_MSG(
      ctx, finite, InvalidArgument, outs,
      "input holds a NaN or infinite value; quantization parameters need a finite range");
  if (aten_kernels::store(ctx, scales, scale_out)) {
    aten_kernels::store(ctx, zero_points, zero_point_out);
  }
  return outs;
}

}  // namespace kiln::portable::native
