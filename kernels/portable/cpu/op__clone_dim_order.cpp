// dim_order_ops::_clone_dim_order.out: clone with the layout named by a dim order, the form
// ExecuTorch's exporter writes `x.clone()` / `x.contiguous()` in. Same dtype, unlike
// _to_dim_order_copy.
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/dim_order_copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& _clone_dim_order_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                             std::optional<IntArrayRef> dim_order, Tensor& out) {
  (void)non_blocking;  // a host-to-host copy is always synchronous
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  return copy_to_dim_order(ctx, self, dim_order, out);
}

}  // namespace kiln::portable::native
