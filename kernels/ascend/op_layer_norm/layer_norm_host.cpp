// Host wrapper of native_layer_norm.out on Ascend, normalizing over the last dim.
#include <optional>
#include <tuple>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_layer_norm/layer_norm_kernels.h"
#include "kernels/ascend/op_layer_norm/layer_norm_tiling.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_LAYER_NORM)

namespace kiln::ascend {
namespace {

// Which entry runs: the input's dtype and the parameters' (layer_norm_kernels.h).
struct LayerNormKey {
  DeviceDtype x;
  DeviceDtype params;

  bool operator==(const LayerNormKey& other) const {
    return x == other.x && params == other.params;
  }
};

KILN_ASCEND_DEFINE_LAUNCH(KILN_LAYER_NORM, launch_layer_norm, LayerNormKey, "layer_norm")

// A weight or bias the kernel takes: 1-d of the row length, contiguous, of `dtype`.
bool accept_param(KernelRuntimeContext& ctx, const std::optional<Tensor>& param, const char* name,
                  int64_t row_len, ScalarType dtype) {
  if (!param.has_value()) return true;
  if (param->dim() != 1 || param->size(0) != row_len) {
    return decline(ctx, "a %s that is not 1-d of the last dim's size", name);
  }
  return accept_input(ctx, *param, name, dtype);
}

// Uploads a parameter padded to the pitch, or a placeholder block the kernel never reads.
bool upload_param(KernelRuntimeContext& ctx, DeviceBuffer& buffer,
                  const std::optional<Tensor>& param, size_t bytes, size_t capacity) {
  if (!param.has_value()) return buffer.allocate(ctx, 32);
  return buffer.upload(ctx, param->const_data_ptr(), bytes, capacity);
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

std::tuple<Tensor&, Tensor&, Tensor&> native_layer_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, IntArrayRef normalized_shape,
    const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, double eps,
    Tensor& out0, Tensor& out1, Tensor& out2) {
  std::tuple<Tensor&, Tensor&, Tensor&> result(out0, out1, out2);
  const ScalarType dtype = input.scalar_type();
  DeviceDtype device_dtype;
  if (!accept_dtype(ctx, dtype, /*int32_ok=*/false, &device_dtype) ||
      !accept_input(ctx, input, "input", dtype)) {
    return result;
  }
  const int64_t rank = input.dim();
  if (rank == 0 || normalized_shape.size() != 1 || normalized_shape[0] != input.size(-1)) {
    decline(ctx, "a normalized_shape other than the last dim alone");
    return result;
  }
  const int64_t row_len = input.size(-1);
  if (row_len == 0) {
    decline(ctx, "an empty normalized dim");
    return result;
  }
  // The parameters (and with them mean and rstd) are all the input's dtype, or all Float for a
  // Half/BFloat16 input, as torch's CPU kernel takes them.
  ScalarType param_dtype = dtype;
  if (weight.has_value()) param_dtype = weight->scalar_type();
  if (!weight.has_value() && bias.has_value()) param_dtype = bias->scalar_type();
  if (param_dtype != dtype && !(param_dtype == ScalarType::Float &&
                                (dtype == ScalarType::Half || dtype == ScalarType::BFloat16))) {
    decline(ctx, "%s weight/bias with a %s input", to_string(param_dtype), to_string(dtype));
    return result;
  }
  if (!accept_param(ctx, weight, "weight", row_len, param_dtype) ||
      !accept_param(ctx, bias, "bias", row_len, param_dtype) ||
      !accept_tensor(ctx, out0, "out0", dtype) || !accept_tensor(ctx, out1, "out1", param_dtype) ||
      !accept_tensor(ctx, out2, "out2", param_dtype)) {
    return result;
  }
  SizesType stat_sizes[kTensorDimensionLimit];
  for (int64_t d = 0; d < rank; ++d) stat_sizes[d] = d + 1 < rank ? input.size(d) : 1;
  const size_t stat_rank = static_cast<size_t>(rank);
  if (!resize_or_fail(ctx, out0, input.sizes()) ||
      !resize_or_fail(ctx, out1, {stat_sizes, stat_rank}) ||
      !resize_or_fail(ctx, out2, {stat_sizes, stat_rank}) || input.numel() == 0) {
    return result;
  }

  DeviceDtype device_param_dtype;
  (void)accept_dtype(ctx, param_dtype, /*int32_ok=*/false, &device_param_dtype);
  const uint64_t rows = static_cast<uint64_t>(input.numel() / row_len);
  const Platform device = platform();
  const LayerNormTiling tiling =
      layer_norm_tiling(device_dtype, device_param_dtype, weight.has_value(), bias.has_value(),
                        static_cast<float>(eps), rows, static_cast<uint64_t>(row_len),
                        device.ub_bytes, device.vector_cores);
  const size_t size = device_element_size(device_dtype);
  const size_t param_size = device_element_size(device_param_dtype);
  const size_t row_bytes = row_len * size;
  const size_t pitch_bytes = tiling.split.pitch * size;
  const size_t stat_bytes = rows * kLayerNormStatPitchBytes;
  DeviceBuffer x, w, b, y, mean, rstd, t;
  if (!x.upload_rows(ctx, input.const_data_ptr(), rows, row_bytes, pitch_bytes) ||
      !upload_param(ctx, w, weight, row_len * param_size, tiling.split.pitch * param_size) ||
      !upload_param(ctx, b, bias, row_len * param_size, tiling.split.pitch * param_size) ||
      !y.allocate(ctx, rows * pitch_bytes) || !mean.allocate(ctx, stat_bytes) ||
      !rstd.allocate(ctx, stat_bytes) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return result;
  }
  const LayerNormKey key{device_dtype, device_param_dtype};
  if (finish_launch(ctx, launch_layer_norm(key, tiling.split.block_dim, x.get(), w.get(), b.get(),
                                           y.get(), mean.get(), rstd.get(), t.get()))) {
    (void)(y.download_rows(ctx, out0.mutable_data_ptr(), rows, row_bytes, pitch_bytes) &&
           mean.download_rows(ctx, out1.mutable_data_ptr(), rows, param_size,
                              kLayerNormStatPitchBytes) &&
           rstd.download_rows(ctx, out2.mutable_data_ptr(), rows, param_size,
                              kLayerNormStatPitchBytes));
  }
  return result;
}

}  // namespace kiln::ascend::native
