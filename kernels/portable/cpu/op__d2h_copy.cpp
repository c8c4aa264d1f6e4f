// et_copy::_d2h_copy.out: ExecuTorch's copy of a device tensor back into host memory. Kiln's
// tensors all live in host memory (an Ascend kernel stages its own device buffers per launch), so
// on the portable backend it is a plain copy: same dtype, out resized to self's shape, self's
// layout.
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/dim_order_copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& _d2h_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  // A device copy moves bytes; it converts no dtype.
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  return copy_to_dim_order(ctx, self, std::nullopt, out);
}

}  // namespace kiln::portable::native
