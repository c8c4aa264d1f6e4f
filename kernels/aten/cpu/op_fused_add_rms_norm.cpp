// ATen mode: kiln::fused_add_rms_norm.out with libtorch's ops (the sum rounded to the input's
// dtype, then its RMS norm), under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <tuple>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

std::tuple<Tensor&, Tensor&> fused_add_rms_norm_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                    const Tensor& residual, const Tensor& weight,
                                                    double epsilon, Tensor& out,
                                                    Tensor& residual_out) {
  std::tuple<Tensor&, Tensor&> result(out, residual_out);
  int64_t rows = 0;
  int64_t n = 0;
  if (!check_add_norm_arguments(ctx, input, residual, weight, &rows, &n, /*row_views=*/true))
    return result;
  at::Tensor sum;
  at::Tensor normed;
  if (!aten_kernels::run_aten(ctx, [&] {
        sum = (input.to(at::kFloat) + residual.to(at::kFloat)).to(input.scalar_type());
        normed = aten_kernels::rms_norm(sum, weight, epsilon);
      })) {
    return result;
  }
  if (aten_kernels::store(ctx, sum, residual_out)) aten_kernels::store(ctx, normed, out);
  return result;
}

}  // namespace kiln::portable::native
