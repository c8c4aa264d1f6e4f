// Host wrappers of ExecuTorch's et_copy::_h2d_copy.out and _d2h_copy.out on Ascend. Kiln's
// tensors live in host memory, so both are a transfer through the device's memory and back:
// self goes to a device buffer (aclrtMemcpy host -> device under CANN, emulated device memory
// otherwise) and comes back into out. No kernel runs; the bytes cross the host/device boundary
// as a program's h2d/d2h pair would.
#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_move/move_host.h"

namespace kiln::ascend {
namespace {

Tensor& transfer(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  size_t width = 0;
  if (!accept_move_tensor(ctx, self, "self", &width) ||
      !accept_tensor(ctx, self, "self", self.scalar_type()) ||
      !accept_tensor(ctx, out, "out", self.scalar_type()) ||
      !resize_or_fail(ctx, out, self.sizes())) {
    return out;
  }
  DeviceBuffer device;
  if (device.upload(ctx, self.const_data_ptr(), self.nbytes())) {
    (void)device.download(ctx, out.mutable_data_ptr(), self.nbytes());
  }
  return out;
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& _h2d_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return transfer(ctx, self, out);
}

Tensor& _d2h_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return transfer(ctx, self, out);
}

}  // namespace kiln::ascend::native
