// dim_order_ops::_to_dim_order_copy.out: _to_copy with the layout named by a dim order, the form
// ExecuTorch's exporter writes `x.to(dtype)` / `x.to(memory_format=...)` in.
#include <optional>

#include "kernels/portable/cpu/util/shape/dim_order_copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& _to_dim_order_copy_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                               std::optional<IntArrayRef> dim_order, Tensor& out) {
  (void)non_blocking;  // a host-to-host copy is always synchronous
  return copy_to_dim_order(ctx, self, dim_order, out);
}

}  // namespace kiln::portable::native
