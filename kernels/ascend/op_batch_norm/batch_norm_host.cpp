// Host wrapper of _native_batch_norm_legit_no_training.out on Ascend: inference batch norm with
// the running statistics, per channel (dim 1).
#include <optional>
#include <tuple>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_batch_norm/batch_norm_kernels.h"
#include "kernels/ascend/op_batch_norm/batch_norm_tiling.h"
#include "runtime/core/half.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_BATCH_NORM)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_BATCH_NORM, launch_batch_norm, DeviceDtype, "batch_norm")

// A per-channel parameter the kernel takes: 1-d of `channels`, contiguous, of `dtype`.
bool accept_channel_param(KernelRuntimeContext& ctx, const std::optional<Tensor>& param,
                          const char* name, int64_t channels, ScalarType dtype) {
  if (!param.has_value()) return true;
  if (param->dim() != 1 || param->size(0) != channels) {
    return decline(ctx, "a %s that is not 1-d of the channel count", name);
  }
  return accept_tensor(ctx, *param, name, dtype);
}

// Row `row` of the parameter array: the parameter widened to float (exact), or `fill` when it is
// absent; the padding up to the pitch stays as allocated (zeroed below).
void stage_row(const std::optional<Tensor>& param, float fill, uint32_t channels, float* row) {
  for (uint32_t c = 0; c < channels; ++c) {
    if (!param.has_value()) {
      row[c] = fill;
    } else if (param->scalar_type() == ScalarType::Half) {
      row[c] = static_cast<float>(param->const_data_ptr<Half>()[c]);
    } else if (param->scalar_type() == ScalarType::BFloat16) {
      row[c] = static_cast<float>(param->const_data_ptr<BFloat16>()[c]);
    } else {
      row[c] = param->const_data_ptr<float>()[c];
    }
  }
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

std::tuple<Tensor&, Tensor&, Tensor&> native_batch_norm_legit_no_training_out(
    KernelRuntimeContext& ctx, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, const Tensor& running_mean, const Tensor& running_var,
    double momentum, double eps, Tensor& out0, Tensor& out1, Tensor& out2) {
  (void)momentum;  // only training updates the running statistics
  std::tuple<Tensor&, Tensor&, Tensor&> result(out0, out1, out2);
  const ScalarType dtype = input.scalar_type();
  DeviceDtype device_dtype;
  if (!accept_dtype(ctx, dtype, /*int32_ok=*/false, &device_dtype) ||
      !accept_tensor(ctx, input, "input", dtype)) {
    return result;
  }
  if (input.dim() < 2) {
    decline(ctx, "an input without a channel dim");
    return result;
  }
  const int64_t channels = input.size(1);
  if (channels > kBatchNormMaxChannels) {
    decline(ctx, "more than %u channels", kBatchNormMaxChannels);
    return result;
  }
  // The parameters are all the input's dtype, or all Float for a Half/BFloat16 input, as
  // torch's CPU kernel takes them; the statistics outputs have the parameters' dtype.
  const ScalarType param_dtype = running_mean.scalar_type();
  if (param_dtype != dtype && !(param_dtype == ScalarType::Float &&
                                (dtype == ScalarType::Half || dtype == ScalarType::BFloat16))) {
    decline(ctx, "%s parameters with a %s input", to_string(param_dtype), to_string(dtype));
    return result;
  }
  if (!accept_channel_param(ctx, weight, "weight", channels, param_dtype) ||
      !accept_channel_param(ctx, bias, "bias", channels, param_dtype) ||
      !accept_channel_param(ctx, running_mean, "running_mean", channels, param_dtype) ||
      !accept_channel_param(ctx, running_var, "running_var", channels, param_dtype) ||
      !accept_tensor(ctx, out0, "out0", dtype) || !accept_tensor(ctx, out1, "out1", param_dtype) ||
      !accept_tensor(ctx, out2, "out2", param_dtype)) {
    return result;
  }
  // ATen returns the saved statistics empty in inference.
  const SizesType empty[1] = {0};
  if (!resize_or_fail(ctx, out0, input.sizes()) || !resize_or_fail(ctx, out1, {empty, 1}) ||
      !resize_or_fail(ctx, out2, {empty, 1}) || input.numel() == 0) {
    return result;
  }

  const uint64_t rows = static_cast<uint64_t>(input.size(0) * channels);
  const uint64_t row_len = static_cast<uint64_t>(input.numel()) / rows;
  const Platform device = platform();
  const BatchNormTiling tiling =
      batch_norm_tiling(device_dtype, static_cast<uint32_t>(channels), static_cast<float>(eps),
                        rows, row_len, device.ub_bytes, device.vector_cores);
  const size_t param_count = size_t{kBatchNormParamRows} * tiling.channel_pitch;
  float* staged =
      static_cast<float*>(staging_memory(ctx, param_count * sizeof(float), "parameters"));
  if (staged == nullptr) return result;
  for (size_t i = 0; i < param_count; ++i) staged[i] = 0.0f;
  const uint32_t pitch = tiling.channel_pitch;
  const uint32_t count = tiling.channels;
  stage_row(running_mean, 0.0f, count, staged);
  stage_row(running_var, 0.0f, count, staged + pitch);
  stage_row(weight, 1.0f, count, staged + 2 * size_t{pitch});
  stage_row(bias, 0.0f, count, staged + 3 * size_t{pitch});

  const size_t size = device_element_size(device_dtype);
  const size_t row_bytes = row_len * size;
  const size_t pitch_bytes = tiling.split.pitch * size;
  DeviceBuffer x, params, y, t;
  if (!x.upload_rows(ctx, input.const_data_ptr(), rows, row_bytes, pitch_bytes) ||
      !params.upload(ctx, staged, param_count * sizeof(float)) ||
      !y.allocate(ctx, rows * pitch_bytes) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return result;
  }
  if (finish_launch(ctx, launch_batch_norm(device_dtype, tiling.split.block_dim, x.get(),
                                           params.get(), y.get(), t.get()))) {
    (void)y.download_rows(ctx, out0.mutable_data_ptr(), rows, row_bytes, pitch_bytes);
  }
  return result;
}

}  // namespace kiln::ascend::native
