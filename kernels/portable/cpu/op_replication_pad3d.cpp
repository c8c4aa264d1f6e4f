// replication_pad3d.out: pads the last 3 dims by (left, right) pairs, last dim first; the padding
// repeats the input's edge elements; negative pads crop.
#include "kernels/portable/cpu/util/spatial/padding.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& replication_pad3d_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef padding,
                              Tensor& out) {
  return pad_out(ctx, self, padding, 3, PadMode::kReplication, "replication_pad3d", out);
}

}  // namespace kiln::portable::native
