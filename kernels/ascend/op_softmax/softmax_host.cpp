// Host wrappers of softmax over the last dim on Ascend: _softmax.out and _log_softmax.out.
#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_softmax/softmax_kernels.h"
#include "kernels/ascend/op_softmax/softmax_tiling.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_SOFTMAX)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_SOFTMAX, launch_softmax, DeviceDtype, "softmax")

// out = softmax(self) (or log_softmax) over the last dim of a contiguous floating self.
Tensor& run_softmax(KernelRuntimeContext& ctx, bool log, const Tensor& self, int64_t dim,
                    bool half_to_float, Tensor& out) {
  DeviceDtype dtype;
  if (!accept_dtype(ctx, self.scalar_type(), /*int32_ok=*/false, &dtype) ||
      !accept_input(ctx, self, "self", self.scalar_type())) {
    return out;
  }
  if (half_to_float) {
    decline(ctx, "half_to_float=True");
    return out;
  }
  const int64_t rank = self.dim();
  const int64_t last = rank == 0 ? 0 : rank - 1;
  if (dim != -1 && dim != last) {
    decline(ctx, "%s over dim %lld (only the last dim)", log ? "log_softmax" : "softmax",
            static_cast<long long>(dim));
    return out;
  }
  if (!accept_tensor(ctx, out, "out", self.scalar_type())) return out;
  if (!resize_or_fail(ctx, out, self.sizes()) || self.numel() == 0) return out;
  const uint64_t row_len = rank == 0 ? 1 : static_cast<uint64_t>(self.size(-1));
  const uint64_t rows = static_cast<uint64_t>(self.numel()) / row_len;
  const Platform device = platform();
  const SoftmaxTiling tiling =
      softmax_tiling(log, dtype, rows, row_len, device.ub_bytes, device.vector_cores);
  const size_t size = device_element_size(dtype);
  const size_t row_bytes = row_len * size;
  const size_t pitch_bytes = tiling.split.pitch * size;
  DeviceBuffer x, y, t;
  if (!x.upload_rows(ctx, self.const_data_ptr(), rows, row_bytes, pitch_bytes) ||
      !y.allocate(ctx, rows * pitch_bytes) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return out;
  }
  if (finish_launch(ctx,
                    launch_softmax(dtype, tiling.split.block_dim, x.get(), y.get(), t.get()))) {
    (void)y.download_rows(ctx, out.mutable_data_ptr(), rows, row_bytes, pitch_bytes);
  }
  return out;
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                    Tensor& out) {
  return run_softmax(ctx, /*log=*/false, self, dim, half_to_float, out);
}

Tensor& log_softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        bool half_to_float, Tensor& out) {
  return run_softmax(ctx, /*log=*/true, self, dim, half_to_float, out);
}

}  // namespace kiln::ascend::native
