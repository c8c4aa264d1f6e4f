// zeros.out: out (of its own dtype) of shape `size` filled with 0.
#include <cstdint>

#include "kernels/portable/cpu/util/shape/fill.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& zeros_out(KernelRuntimeContext& ctx, IntArrayRef size, Tensor& out) {
  return fill_with(ctx, size, Scalar(int64_t{0}), out);
}

}  // namespace kiln::portable::native
