// ATen mode: kiln::gelu_and_mul.out, gelu(x) * y with libtorch's ops (exact or tanh), under the
// name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <string>
#include <string_view>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {

Tensor& gelu_and_mul_out(KernelRuntimeContext& ctx, const Tensor& input,
                         std::string_view approximate, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, approximate == "none" || approximate == "tanh", InvalidArgument, out,
                        "approximate must be 'none' or 'tanh', but got '%.*s'",
                        static_cast<int>(approximate.size()), approximate.data());
  if (!aten_kernels::check_gated(ctx, input)) return out;
  const int64_t d = input.size(-1) / 2;
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
