// ATen mode: kiln::silu_and_mul.out, silu(x) * y with libtorch's ops, under the name
// custom_ops.yaml binds.
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

Tensor& silu_and_mul_out(KernelRuntimeContext& ctx, const Tensor& input, Tensor& out) {
  if (!aten_kernels::check_gated(ctx, input)) return out;
  const int64_t d = input.size(-1) / 2;
  at::Tensor result;
  if (aten_kernels::run_aten(
          ctx, [&] { result = at::silu(input.narrow(-1, 0, d)) * input.narrow(-1, d, d); })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
