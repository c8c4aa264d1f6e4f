// replication_pad2d.out: pads the last 2 dims by (left, right) pairs, last dim first; the padding
// repeats the input's edge elements; negative pads crop.
#include "kernels/portable/cpu/util/spatial/padding.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& replication_pad2d_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef padding,
                              Tensor& out) {
  return pad_out(ctx, self, padding, 2, PadMode::kReplication, "replication_pad2d", out);
}

}  // namespace kiln::portable::native
