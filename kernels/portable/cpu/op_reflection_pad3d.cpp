// reflection_pad3d.out: pads the last 3 dims by (left, right) pairs, last dim first; the padding
// mirrors the input about its edge elements (which are not repeated); negative pads crop.
#include "kernels/portable/cpu/util/spatial/padding.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& reflection_pad3d_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef padding,
                             Tensor& out) {
  return pad_out(ctx, self, padding, 3, PadMode::kReflection, "reflection_pad3d", out);
}

}  // namespace kiln::portable::native
