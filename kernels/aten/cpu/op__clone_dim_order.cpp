// ATen mode: dim_order_ops::_clone_dim_order.out on libtorch's tensors (clone into the layout a
// dim order names; same dtype), under the name custom_ops.yaml binds.
#include <optional>

#include "kernels/aten/cpu/util/dim_order_copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& _clone_dim_order_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                             std::optional<IntArrayRef> dim_order, Tensor& out) {
  (void)non_blocking;  // a host-to-host copy is always synchronous
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == self.scalar_type(), InvalidArgument, out,
                        "Expected out tensor to have dtype %s, but got %s instead; pass an out "
                        "tensor of dtype %s",
                        c10::toString(self.scalar_type()), c10::toString(out.scalar_type()),
                        c10::toString(self.scalar_type()));
  return aten_kernels::copy_to_dim_order(ctx, self, dim_order, out);
}

}  // namespace kiln::portable::native
