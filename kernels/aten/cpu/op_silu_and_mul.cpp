// ATen mode: kiln::silu_and_mul.out, silu(x) * y with libtorch's ops, under the name
// custom_ops.yaml binds.
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

Tensor& silu_and_mul_out(KernelRuntimeContext& ctx, const Tensor& input, Tensor& out) {
  int64_t d = 0;
  if (!check_gated_input(ctx, input, "silu_and_mul", &d, /*row_views=*/true)) return out;
  at::Tensor result;
  if (aten_kernels::run_aten(
          ctx, [&] { result = at::silu(input.narrow(-1, 0, d)) * input.narrow(-1, d, d); })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
