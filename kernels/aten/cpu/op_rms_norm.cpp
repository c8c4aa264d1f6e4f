// ATen mode: kiln::rms_norm.out with libtorch's ops, under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

Tensor& rms_norm_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                     double epsilon, Tensor& out) {
  int64_t rows = 0;
  int64_t n = 0;
  if (!check_norm_arguments(ctx, input, weight, &rows, &n, /*row_views=*/true)) return out;
  at::Tensor result;
  if (aten_kernels::run_aten(ctx,
                             [&] { result = aten_kernels::rms_norm(input, weight, epsilon); })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
