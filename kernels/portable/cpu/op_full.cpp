// full.out: out (of its own dtype) of shape `size` filled with fill_value.
#include "kernels/portable/cpu/util/shape/fill.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& full_out(KernelRuntimeContext& ctx, IntArrayRef size, const Scalar& fill_value,
                 Tensor& out) {
  return fill_with(ctx, size, fill_value, out);
}

}  // namespace kiln::portable::native
