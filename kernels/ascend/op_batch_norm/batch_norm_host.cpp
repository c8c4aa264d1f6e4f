// Host wrapper of _native_batch_norm_legit_no_training.out on Ascend: inference batch norm with
// the running statistics, per channel (dim 1). The input is staged channel by channel, so that
// the kernel maps whole rows of one channel however many samples there are.
#include <cstring>
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
  return accept_input(ctx, *param, name, dtype);
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

// Calls copy(tensor element, staged element, count) for each run of elements that is contiguous
// in both the input's layout [N, C, inner] and the staged one (batch_norm_tiling.h: per channel,
// rows_per_channel rows of row_len, pitch apart).
template <typename Copy>
void for_each_run(const BatchNormTiling& t, uint64_t samples, uint64_t inner, Copy copy) {
  const uint64_t row_len = t.split.row_len;
  for (uint64_t c = 0; c < t.channels; ++c) {
    for (uint64_t n = 0; n < samples; ++n) {
      uint64_t from = (n * t.channels + c) * inner;
      for (uint64_t e = n * inner, left = inner; left > 0;) {
        const uint64_t row = c * t.rows_per_channel + e / row_len;
        const uint64_t column = e % row_len;
        const uint64_t count = row_len - column < left ? row_len - column : left;
        copy(from, row * t.split.pitch + column, count);
        from += count;
        e += count;
        left -= count;
      }
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
      !accept_input(ctx, input, "input", dtype)) {
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

  const uint64_t samples = static_cast<uint64_t>(input.size(0));
  const uint64_t inner = static_cast<uint64_t>(input.numel()) / (samples * channels);
  const Platform device = platform();
  const BatchNormTiling tiling =
      batch_norm_tiling(device_dtype, static_cast<uint32_t>(channels), static_cast<float>(eps),
                        samples * inner, device.ub_bytes, device.vector_cores);
  const size_t size = device_element_size(device_dtype);
  const uint64_t rows = tiling.split.rows;
  const size_t staged_bytes = rows * tiling.split.pitch * size;
  const size_t param_count = size_t{kBatchNormParamRows} * tiling.channel_pitch;
  uint8_t* memory = static_cast<uint8_t*>(
      staging_memory(ctx, param_count * sizeof(float) + staged_bytes, "an input"));
  if (memory == nullptr) return result;
  float* params_staged = reinterpret_cast<float*>(memory);
  uint8_t* staged = memory + param_count * sizeof(float);
  for (size_t i = 0; i < param_count; ++i) params_staged[i] = 0.0f;
  const uint32_t pitch = tiling.channel_pitch;
  const uint32_t count = tiling.channels;
  stage_row(running_mean, 0.0f, count, params_staged);
  stage_row(running_var, 0.0f, count, params_staged + pitch);
  stage_row(weight, 1.0f, count, params_staged + 2 * size_t{pitch});
  stage_row(bias, 0.0f, count, params_staged + 3 * size_t{pitch});
  std::memset(staged, 0, staged_bytes);
  const uint8_t* in = static_cast<const uint8_t*>(input.const_data_ptr());
  for_each_run(tiling, samples, inner, [&](uint64_t from, uint64_t to, uint64_t n) {
    std::memcpy(staged + to * size, in + from * size, n * size);
  });

  DeviceBuffer x, params, y, t;
  if (!x.upload(ctx, staged, staged_bytes) ||
      !params.upload(ctx, params_staged, param_count * sizeof(float)) ||
      !y.allocate(ctx, staged_bytes) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return result;
  }
  if (finish_launch(ctx, launch_batch_norm(device_dtype, tiling.split.block_dim, x.get(),
                                           params.get(), y.get(), t.get())) &&
      y.download(ctx, staged, staged_bytes)) {
    uint8_t* y_out = static_cast<uint8_t*>(out0.mutable_data_ptr());
    for_each_run(tiling, samples, inner, [&](uint64_t to, uint64_t from, uint64_t n) {
      std::memcpy(y_out + to * size, staged + from * size, n * size);
    });
  }
  return result;
}

}  // namespace kiln::ascend::native
