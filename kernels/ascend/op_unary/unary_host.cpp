// Host wrappers of the unary elementwise ops on Ascend: relu.out.
#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_unary/unary_kernels.h"
#include "kernels/ascend/op_unary/unary_tiling.h"

namespace kiln::ascend {
namespace {

LaunchOutcome launch_unary(DeviceDtype dtype, const UnaryTiling& tiling, uint8_t* x, uint8_t* y,
                           uint8_t* t) {
  switch (dtype) {
    case DeviceDtype::Float:
      return KILN_ASCEND_LAUNCH(kiln_unary_float, tiling.block_dim, launch_stream(), x, y, t);
    case DeviceDtype::Half:
      return KILN_ASCEND_LAUNCH(kiln_unary_half, tiling.block_dim, launch_stream(), x, y, t);
    case DeviceDtype::Int32:
      return KILN_ASCEND_LAUNCH(kiln_unary_int32, tiling.block_dim, launch_stream(), x, y, t);
    case DeviceDtype::BFloat16:
#if KILN_ASCEND_BF16
      return KILN_ASCEND_LAUNCH(kiln_unary_bf16, tiling.block_dim, launch_stream(), x, y, t);
#else
      break;
#endif
  }
  LaunchOutcome outcome;
  outcome.ok = false;
  outcome.message = "no unary kernel for this dtype in this build";
  return outcome;
}

// out = op(self) for a contiguous self of a dtype the kernel takes; declines everything else.
Tensor& run_unary(KernelRuntimeContext& ctx, UnaryOp op, bool int32_ok, const Tensor& self,
                  Tensor& out) {
  DeviceDtype dtype;
  if (!accept_dtype(ctx, self.scalar_type(), int32_ok, &dtype) ||
      !accept_tensor(ctx, self, "self", self.scalar_type()) ||
      !accept_tensor(ctx, out, "out", self.scalar_type())) {
    return out;
  }
  if (!resize_or_fail(ctx, out, self.sizes()) || self.numel() == 0) return out;
  const Platform device = platform();
  const UnaryTiling tiling = unary_tiling(op, dtype, static_cast<uint64_t>(self.numel()),
                                          device.ub_bytes, device.vector_cores);
  const size_t size = device_element_size(dtype);
  const size_t bytes = static_cast<size_t>(self.numel()) * size;
  DeviceBuffer x, y, t;
  if (!x.upload(ctx, self.const_data_ptr(), bytes, tiling.total * size) ||
      !y.allocate(ctx, tiling.total * size) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return out;
  }
  if (finish_launch(ctx, launch_unary(dtype, tiling, x.get(), y.get(), t.get()))) {
    (void)y.download(ctx, out.mutable_data_ptr(), bytes);
  }
  return out;
}

}  // namespace

namespace native {

Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return run_unary(ctx, UnaryOp::Relu, /*int32_ok=*/true, self, out);
}

}  // namespace native
}  // namespace kiln::ascend
