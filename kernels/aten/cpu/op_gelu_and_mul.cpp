// ATen mode: kiln::gelu_and_mul.out, gelu(x) * y with libtorch's ops (exact or tanh), under the
// name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <string>
#include <string_view>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

Tensor& gelu_and_mul_out(KernelRuntimeContext& ctx, const Tensor& input,
                         std::string_view approximate, Tensor& out) {
  bool tanh = false;
  int64_t d = 0;
  if (!check_gelu_approximate(ctx, approximate, &tanh) ||
      !check_gated_input(ctx, input, "gelu_and_mul", &d, /*row_views=*/true)) {
    return out;
  }
  at::Tensor result;
  if (aten_kernels::run_aten(ctx, [&] {
        // gelu in double, rounded to the dtype: libtorch's float gelu loses relative accuracy
        // for negative x (1 + erf cancels), which the portable kernel does not.
        const at::Tensor gate = input.narrow(-1, 0, d).to(at::kDouble);
        result = at::gelu(gate, std::string(approximate)).to(input.scalar_type()) *
                 input.narrow(-1, d, d);
      })) {
    aten_kernels::store(ctx, result, out);
  }
  return out;
}

}  // namespace kiln::portable::native
