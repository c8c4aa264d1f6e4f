// _unsafe_view.out: self's elements in a new shape (one size may be -1 and is inferred).
#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& _unsafe_view_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef size,
                         Tensor& out) {
  return view_into(ctx, self, size, out);
}

}  // namespace kiln::portable::native
