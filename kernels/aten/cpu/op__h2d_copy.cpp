// ATen mode: et_copy::_h2d_copy.out on libtorch's tensors. ExecuTorch's copy of a host tensor into
// device memory is a plain copy here, as on the portable backend: same dtype, out resized to self's
// shape, self's layout.
#include <optional>

#include "kernels/aten/cpu/util/dim_order_copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& _h2d_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == self.scalar_type(), InvalidArgument, out,
                        "Expected out tensor to have dtype %s, but got %s instead; pass an out "
                        "tensor of dtype %s",
                        c10::toString(self.scalar_type()), c10::toString(out.scalar_type()),
                        c10::toString(self.scalar_type()));
  return aten_kernels::copy_to_dim_order(ctx, self, std::nullopt, out);
}

}  // namespace kiln::portable::native
