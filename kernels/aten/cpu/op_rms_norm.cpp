// ATen mode: kiln::rms_norm.out with libtorch's ops, under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

Tensor& rms_norm_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                     double epsilon, Tensor& out) {
  if (!aten_kernels::check_norm(ctx, input, weight)) return out;
  at::Tensor result;
  if (aten_kernels::run_aten(ctx,
                             [&] { result = aten_kernels::rms_norm(input, weight, epsilon); })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
