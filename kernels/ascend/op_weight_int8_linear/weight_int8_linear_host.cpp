// Host wrapper of kiln::weight_int8_linear.out on Ascend: x (half, float; bfloat16 on 910B)
// times an int8 weight [n, k] on the vector unit, per-channel scales and optional bias.
//
// Why the vector unit, not the cube: the cube's result is stored in the operands' dtype, so a
// half product would be rounded (and could overflow half: k int8 products are unscaled) before
// the per-channel scale; folding the scale into a dequantised half weight instead rounds every
// weight. The vector unit keeps the portable kernel's semantics (sum, scale and bias in float,
// one rounding) and reads the int8 weight once, where the cube path would first write and then
// read a dequantised copy of it: decode (a few rows of x) is bound by that traffic.
//
// Everything else (other dtypes, non-contiguous tensors, k == 0, invalid input) declines to the
// portable kernel, which owns the error messages.
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_weight_int8_linear/weight_int8_linear_kernels.h"
#include "kernels/ascend/op_weight_int8_linear/weight_int8_linear_tiling.h"
#include "runtime/core/half.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_WEIGHT_INT8_LINEAR)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_WEIGHT_INT8_LINEAR, launch_weight_int8_linear, DeviceDtype,
                          "weight_int8_linear")

template <typename T>
void widen_channels(const T* src, uint32_t n, uint32_t padded, float* dst) {
  for (uint32_t j = 0; j < n; ++j) dst[j] = static_cast<float>(src[j]);
  for (uint32_t j = n; j < padded; ++j) dst[j] = 0.0f;
}

// A per-channel vector (scales or bias: Float, Half or BFloat16) as `padded` floats in device
// memory, zero padded. Widening is exact.
bool stage_channels(KernelRuntimeContext& ctx, const Tensor& values, const char* name,
                    uint32_t padded, DeviceBuffer& device) {
  const size_t bytes = size_t{padded} * sizeof(float);
  float* host = static_cast<float*>(staging_memory(ctx, bytes, name));
  if (host == nullptr) return false;
  const uint32_t n = static_cast<uint32_t>(values.numel());
  switch (values.scalar_type()) {
    case ScalarType::Half:
      widen_channels(values.const_data_ptr<Half>(), n, padded, host);
      break;
    case ScalarType::BFloat16:
      widen_channels(values.const_data_ptr<BFloat16>(), n, padded, host);
      break;
    default:
      widen_channels(values.const_data_ptr<float>(), n, padded, host);
      break;
  }
  return device.upload(ctx, host, bytes);
}

// A 1-d per-channel tensor of n elements in `dtype` (or Float, where `float_ok`).
bool accept_channels(KernelRuntimeContext& ctx, const Tensor& values, const char* name,
                     ScalarType dtype, bool float_ok, int64_t n) {
  const ScalarType type =
      float_ok && values.scalar_type() == ScalarType::Float ? ScalarType::Float : dtype;
  if (!accept_input(ctx, values, name, type)) return false;
  if (values.dim() != 1 || values.size(0) != n) {
    return decline(ctx, "%s of %lld dims (it takes [out_features])", name,
                   static_cast<long long>(values.dim()));
  }
  return true;
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& weight_int8_linear_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                               const Tensor& scales, const std::optional<Tensor>& bias,
                               Tensor& out) {
  const ScalarType type = input.scalar_type();
  DeviceDtype dtype;
  if (!accept_dtype(ctx, type, /*int32_ok=*/false, &dtype) ||
      !accept_input(ctx, input, "input", type) ||
      !accept_tensor(ctx, weight, "weight", ScalarType::Char) ||
      !accept_tensor(ctx, out, "out", type)) {
    return out;
  }
  if (input.dim() < 1 || weight.dim() != 2 || weight.size(1) != input.size(-1)) {
    decline(ctx, "input of %lld dims and weight of %lld dims with other in_features",
            static_cast<long long>(input.dim()), static_cast<long long>(weight.dim()));
    return out;
  }
  const int64_t n = weight.size(0), k = weight.size(1);
  if (!accept_channels(ctx, scales, "scales", type, /*float_ok=*/true, n) ||
      (bias.has_value() && !accept_channels(ctx, *bias, "bias", type, /*float_ok=*/false, n))) {
    return out;
  }
  if (k == 0 || k >= (int64_t{1} << 30) || n >= (int64_t{1} << 30)) {
    decline(ctx, "in_features = %lld, out_features = %lld (it takes 1 .. 2^30 - 1)",
            static_cast<long long>(k), static_cast<long long>(n));
    return out;
  }
  const size_t rank = static_cast<size_t>(input.dim());
  SizesType sizes[kTensorDimensionLimit];
  uint64_t m = 1;
  for (size_t d = 0; d + 1 < rank; ++d) {
    sizes[d] = input.size(static_cast<int64_t>(d));
    m *= static_cast<uint64_t>(sizes[d]);
  }
  sizes[rank - 1] = static_cast<SizesType>(n);
  if (!resize_or_fail(ctx, out, {sizes, rank}) || m == 0 || n == 0) return out;
  const Platform device = platform();
  WeightInt8LinearTiling tiling =
      weight_int8_linear_tiling(dtype, m, static_cast<uint32_t>(n), static_cast<uint32_t>(k),
                                device.ub_bytes, device.vector_cores);
  tiling.has_bias = bias.has_value() ? 1 : 0;
  const size_t size = device_element_size(dtype);
  const uint32_t channels = tiling.tiles * tiling.channel_tile;
  DeviceBuffer x, w, s, b, y, t;
  if (!x.upload_rows(ctx, input.const_data_ptr(), m, k * size, tiling.pitch * size) ||
      !w.upload_rows(ctx, weight.const_data_ptr(), n, k, tiling.pitch) ||
      !stage_channels(ctx, scales, "scales", channels, s) ||
      (bias.has_value() && !stage_channels(ctx, *bias, "bias", channels, b)) ||
      !y.allocate(ctx, m * tiling.y_pitch * size) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return out;
  }
  if (finish_launch(ctx, launch_weight_int8_linear(dtype, tiling.block_dim, x.get(), w.get(),
                                                   s.get(), b.get(), y.get(), t.get()))) {
    (void)y.download_rows(ctx, out.mutable_data_ptr(), m, n * size, tiling.y_pitch * size);
  }
  return out;
}

}  // namespace kiln::ascend::native
