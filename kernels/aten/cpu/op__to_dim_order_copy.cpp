// ATen mode: dim_order_ops::_to_dim_order_copy.out on libtorch's tensors (_to_copy into the layout
// a dim order names), under the name custom_ops.yaml binds.
#include <optional>

#include "kernels/aten/cpu/util/dim_order_copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& _to_dim_order_copy_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                               std::optional<IntArrayRef> dim_order, Tensor& out) {
  (void)non_blocking;  // a host-to-host copy is always synchronous
  return aten_kernels::copy_to_dim_order(ctx, self, dim_order, out);
}

}  // namespace kiln::portable::native
