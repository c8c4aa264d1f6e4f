// scalar_tensor.out: out, a 0-dim tensor of its own dtype, holding s (range-checked as fill_
// checks a value).
#include "kernels/portable/cpu/util/shape/fill.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& scalar_tensor_out(KernelRuntimeContext& ctx, const Scalar& s, Tensor& out) {
  return fill_with(ctx, {}, s, out);
}

}  // namespace kiln::portable::native
