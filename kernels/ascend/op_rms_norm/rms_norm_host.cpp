// Host wrappers of kiln::rms_norm.out and kiln::fused_add_rms_norm.out on Ascend, normalizing
// over the last dim.
#include <tuple>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_rms_norm/rms_norm_kernels.h"
#include "kernels/ascend/op_rms_norm/rms_norm_tiling.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_RMS_NORM)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_RMS_NORM, launch_rms_norm, DeviceDtype, "rms_norm")

// Runs the norm of input (plus residual when given) into out (and residual_out); the checks
// mirror the portable kernels', whose messages serve a declined call.
void run_rms_norm(KernelRuntimeContext& ctx, const Tensor& input, const Tensor* residual,
                  const Tensor& weight, double epsilon, Tensor& out, Tensor* residual_out) {
  const ScalarType dtype = input.scalar_type();
  DeviceDtype device_dtype;
  if (!accept_dtype(ctx, dtype, /*int32_ok=*/false, &device_dtype) ||
      !accept_input(ctx, input, "input", dtype)) {
    return;
  }
  if (input.dim() == 0) {
    decline(ctx, "a 0-dim input");
    return;
  }
  const int64_t row_len = input.size(-1);
  if (weight.dim() != 1 || weight.size(0) != row_len) {
    decline(ctx, "a weight that is not 1-d of the last dim's size");
    return;
  }
  if (!accept_input(ctx, weight, "weight", dtype)) return;
  if (residual != nullptr) {
    if (!residual->sizes().equals(input.sizes())) {
      decline(ctx, "a residual of another shape than input");
      return;
    }
    if (!accept_input(ctx, *residual, "residual", dtype) ||
        !accept_tensor(ctx, *residual_out, "residual_out", dtype)) {
      return;
    }
  }
  if (!accept_tensor(ctx, out, "out", dtype) || !resize_or_fail(ctx, out, input.sizes()) ||
      (residual_out != nullptr && !resize_or_fail(ctx, *residual_out, input.sizes())) ||
      input.numel() == 0) {
    return;
  }

  const uint64_t rows = static_cast<uint64_t>(input.numel() / row_len);
  const Platform device = platform();
  const RmsNormTiling tiling =
      rms_norm_tiling(device_dtype, residual != nullptr, static_cast<float>(epsilon), rows,
                      static_cast<uint64_t>(row_len), device.ub_bytes, device.vector_cores);
  const size_t size = device_element_size(device_dtype);
  const size_t row_bytes = row_len * size;
  const size_t pitch_bytes = tiling.split.pitch * size;
  DeviceBuffer x, r, w, y, sum, t;
  const bool uploaded =
      x.upload_rows(ctx, input.const_data_ptr(), rows, row_bytes, pitch_bytes) &&
      w.upload(ctx, weight.const_data_ptr(), row_bytes, pitch_bytes) &&
      y.allocate(ctx, rows * pitch_bytes) && t.upload(ctx, &tiling, sizeof(tiling)) &&
      (residual == nullptr
           ? r.allocate(ctx, 32) && sum.allocate(ctx, 32)  // placeholders the kernel never reads
           : r.upload_rows(ctx, residual->const_data_ptr(), rows, row_bytes, pitch_bytes) &&
                 sum.allocate(ctx, rows * pitch_bytes));
  if (!uploaded ||
      !finish_launch(ctx, launch_rms_norm(device_dtype, tiling.split.block_dim, x.get(), r.get(),
                                          w.get(), y.get(), sum.get(), t.get()))) {
    return;
  }
  (void)(y.download_rows(ctx, out.mutable_data_ptr(), rows, row_bytes, pitch_bytes) &&
         (residual_out == nullptr ||
          sum.download_rows(ctx, residual_out->mutable_data_ptr(), rows, row_bytes, pitch_bytes)));
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& rms_norm_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                     double epsilon, Tensor& out) {
  run_rms_norm(ctx, input, nullptr, weight, epsilon, out, nullptr);
  return out;
}

std::tuple<Tensor&, Tensor&> fused_add_rms_norm_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                    const Tensor& residual, const Tensor& weight,
                                                    double epsilon, Tensor& out,
                                                    Tensor& residual_out) {
  run_rms_norm(ctx, input, &residual, weight, epsilon, out, &residual_out);
  return {out, residual_out};
}

}  // namespace kiln::ascend::native
