// ATen mode: ExecuTorch's affine (de)quantization with libtorch's ops.
#include "kernels/aten/cpu/util/quantized.h"

#include <ATen/ATen.h>

namespace kiln::aten_kernels {
namespace {

at::Tensor blocks_view(const at::Tensor& t, const AtenAffine& a) {
  return t.reshape({a.outer, a.channels, a.inner});
}

at::Tensor channel_view(const at::Tensor& t, const AtenAffine& a) {
  return t.reshape({1, a.channels, 1});
}

// q = clamp(zero_point + nearbyint(float(inv_scale * x)), quant_min, quant_max), NaN to
// quant_min: the product in double for Double input and in float otherwise, as the portable loop.
at::Tensor quantize(const at::Tensor& input, const AtenAffine& a, int64_t quant_min,
                    int64_t quant_max, at::ScalarType dtype) {
  const at::Tensor x = blocks_view(input, a);
  const at::Tensor inv_scale = at::reciprocal(channel_view(a.scales, a).to(at::kFloat));
  const at::Tensor scaled = x.scalar_type() == at::kDouble
                                ? (x * inv_scale.to(at::kDouble)).to(at::kFloat)
                                : x.to(at::kFloat) * inv_scale;
  const at::Tensor shifted =
      at::round(scaled).to(at::kDouble) + channel_view(a.zero_points, a).to(at::kDouble);
  const at::Tensor clamped =
      at::clamp(shifted, static_cast<double>(quant_min), static_cast<double>(quant_max));
  const at::Tensor q = at::where(
      at::isnan(clamped), at::scalar_tensor(static_cast<double>(quant_min), at::kDouble), clamped);
  return q.to(dtype).reshape(input.sizes());
}

// x = out_dtype(float(q - zero_point) * float(scale)).
at::Tensor dequantize(const at::Tensor& input, const AtenAffine& a, at::ScalarType out_dtype) {
  const at::Tensor difference =
      blocks_view(input, a).to(at::kLong) - channel_view(a.zero_points, a).to(at::kLong);
  const at::Tensor x = difference.to(at::kFloat) * channel_view(a.scales, a).to(at::kFloat);
  return x.to(out_dtype).reshape(input.sizes());
}

}  // namespace

AtenAffine per_tensor(double scale, int64_t zero_point, int64_t numel) {
  return {at::scalar_tensor(scale, at::kDouble), at::scalar_tensor(zero_point, at::kLong), 1, 1,
          numel};
}

AtenAffine per_tensor(const at::Tensor& scale, const at::Tensor& zero_point, int64_t numel) {
  return {scale, zero_point, 1, 1, numel};
}

AtenAffine per_channel(const at::Tensor& input, const at::Tensor& scales,
                       const std::optional<at::Tensor>& zero_points, int64_t axis) {
  AtenAffine a{scales, zero_points.has_value() ? *zero_points : at::zeros_like(scales, at::kLong),
               1, input.size(axis), 1};
  for (int64_t d = 0; d < axis; ++d) a.outer *= input.size(d);
  for (int64_t d = axis + 1; d < input.dim(); ++d) a.inner *= input.size(d);
  return a;
}

AtenAffine per_token(const at::Tensor& input, const at::Tensor& scales,
                     const at::Tensor& zero_points, int64_t tokens) {
  return {scales, zero_points, 1, tokens, input.size(input.dim() - 1)};
}

void quantize_into(KernelRuntimeContext& ctx, const at::Tensor& input, const AtenAffine& affine,
                   int64_t quant_min, int64_t quant_max, at::ScalarType dtype, at::Tensor& out) {
  if (!portable::check_quantize_arguments(ctx, input, quant_min, quant_max, dtype, out)) return;
  at::Tensor result;
  if (run_aten(ctx, [&] { result = quantize(input, affine, quant_min, quant_max, dtype); })) {
    store(ctx, result, out);
  }
}

void dequantize_into(KernelRuntimeContext& ctx, const at::Tensor& input, const AtenAffine& affine,
                     int64_t quant_min, int64_t quant_max, at::ScalarType dtype,
                     std::optional<at::ScalarType> out_dtype, at::Tensor& out) {
  if (!portable::check_dequantize_arguments(ctx, input, quant_min, quant_max, dtype, out_dtype,
                                            out)) {
    return;
  }
  at::Tensor result;
  if (run_aten(ctx, [&] { result = dequantize(input, affine, out.scalar_type()); })) {
    store(ctx, result, out);
  }
}

}  // namespace kiln::aten_kernels
