// Host wrappers of kiln::rms_norm.out and kiln::fused_add_rms_norm.out on Ascend, normalizing
// over the last dim; input, residual and the outs may be row views.
#include <tuple>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/common/row_image.h"
#include "kernels/ascend/op_rms_norm/rms_norm_kernels.h"
#include "kernels/ascend/op_rms_norm/rms_norm_tiling.h"
#include "kernels/portable/cpu/util/llm/arguments.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_RMS_NORM)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_RMS_NORM, launch_rms_norm, DeviceDtype, "rms_norm")

// Runs the norm of input (plus residual when given) into out (and residual_out). Input, residual
// and the outs may be row views (arguments.h), which the kernel reads and writes where they lie
// (row_image.h); what the portable kernel refuses declines, and the portable kernel reports it.
void run_rms_norm(KernelRuntimeContext& ctx, const Tensor& input, const Tensor* residual,
                  const Tensor& weight, double epsilon, Tensor& out, Tensor* residual_out) {
  const ScalarType dtype = input.scalar_type();
  DeviceDtype device_dtype;
  if (!accept_dtype(ctx, dtype, /*int32_ok=*/false, &device_dtype)) return;
  // The portable kernel's own checks (shared with it), on a scratch context.
  KernelRuntimeContext checks;
  int64_t rows = 0;
  int64_t row_len = 0;
  const bool valid =
      residual == nullptr
          ? portable::check_norm_arguments(checks, input, weight, &rows, &row_len,
                                           /*row_views=*/true)
          : portable::check_add_norm_arguments(checks, input, *residual, weight, &rows, &row_len,
                                               /*row_views=*/true);
  if (!valid) {
    refused(ctx, checks);
    return;
  }
  if (!accept_input(ctx, input, "input", dtype, /*row_view=*/true) ||
      !accept_input(ctx, weight, "weight", dtype) ||
      (residual != nullptr &&
       !accept_input(ctx, *residual, "residual", dtype, /*row_view=*/true)) ||
      !accept_row_view(ctx, out, "out", dtype) ||
      (residual_out != nullptr && !accept_row_view(ctx, *residual_out, "residual_out", dtype)) ||
      !resize_or_fail(ctx, out, input.sizes()) ||
      (residual_out != nullptr && !resize_or_fail(ctx, *residual_out, input.sizes()))) {
    return;
  }
  if (!portable::check_row_activation(checks, out, "out", /*is_out=*/true) ||
      (residual_out != nullptr &&
       !portable::check_row_activation(checks, *residual_out, "residual_out", /*is_out=*/true))) {
    refused(ctx, checks);
    return;
  }
  if (rows == 0) return;

  const Platform device = platform();
  RmsNormTiling tiling = rms_norm_tiling(
      device_dtype, residual != nullptr, static_cast<float>(epsilon), static_cast<uint64_t>(rows),
      static_cast<uint64_t>(row_len), device.ub_bytes, device.vector_cores);
  // The kernel copies whole rows padded to the pitch, or chunks of them up to it.
  const uint64_t pitch = tiling.split.pitch;
  const RowAccess reads{pitch, pitch, /*is_out=*/false};
  const RowAccess writes{pitch, pitch, /*is_out=*/true};
  const uint64_t n = static_cast<uint64_t>(row_len);
  RowImage x_image{};
  RowImage y_image{};
  RowImage r_image{};
  RowImage sum_image{};
  if (!plan_row_image(ctx, input, "input", n, reads, &x_image) ||
      !plan_row_image(ctx, out, "out", n, writes, &y_image) ||
      (residual != nullptr &&
       (!plan_row_image(ctx, *residual, "residual", n, reads, &r_image) ||
        !plan_row_image(ctx, *residual_out, "residual_out", n, writes, &sum_image)))) {
    return;
  }
  tiling.x = x_image.rows;
  tiling.y = y_image.rows;
  tiling.residual = r_image.rows;
  tiling.sum = sum_image.rows;
  const size_t size = device_element_size(device_dtype);
  DeviceBuffer x, r, w, y, sum, t;
  const bool uploaded =
      upload_row_image(ctx, x, input, x_image) &&
      w.upload(ctx, weight.const_data_ptr(), n * size, pitch * size) &&
      y.allocate(ctx, y_image.bytes) && t.upload(ctx, &tiling, sizeof(tiling)) &&
      (residual == nullptr
           ? r.allocate(ctx, 32) && sum.allocate(ctx, 32)  // placeholders the kernel never reads
           : upload_row_image(ctx, r, *residual, r_image) && sum.allocate(ctx, sum_image.bytes));
  if (!uploaded ||
      !finish_launch(ctx, launch_rms_norm(device_dtype, tiling.split.block_dim, x.get(), r.get(),
                                          w.get(), y.get(), sum.get(), t.get()))) {
    return;
  }
  (void)(download_row_image(ctx, y, out, y_image) &&
         (residual_out == nullptr || download_row_image(ctx, sum, *residual_out, sum_image)));
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
