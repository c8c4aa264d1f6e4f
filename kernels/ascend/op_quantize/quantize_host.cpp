// Host wrappers of ExecuTorch's affine quantize / dequantize operators on Ascend
// (quantized_decomposed::, per tensor, per channel, per token; quantize_kernel.cpp). Each runs the
// portable kernel's argument checks (util/quantized/arguments.h) on a scratch context and
// declines what they refuse, so that the portable kernel reports it; then it declines what the
// device cannot compute exactly as the portable kernel does: Double (no double on the vector
// unit), BFloat16 on a SoC without it, Int32 parameters whose arithmetic would leave int32, and
// on Ascend310P, whose vector unit saturates inf and NaN, the inputs and scales that would make
// one. Otherwise it stages the tensor as rows (quantize_tiling.h), uploads it with the
// parameters, launches and downloads the result.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_quantize/quantize_kernels.h"
#include "kernels/ascend/op_quantize/quantize_tiling.h"
#include "kernels/portable/cpu/util/quantized/arguments.h"
#include "runtime/core/half.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_QUANTIZE)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_QUANTIZE, launch_affine, uint32_t, "quantize")

// The affine parameters of each channel: tensors, or one number for all (no zero points: 0).
struct ChannelParams {
  const Tensor* scales = nullptr;
  const Tensor* zero_points = nullptr;
  double scale = 1.0;
  int64_t zero_point = 0;

  double scale_of(uint64_t c) const {
    return scales == nullptr ? scale : portable::scale_at(*scales, static_cast<int64_t>(c));
  }
  int64_t zero_point_of(uint64_t c) const {
    return zero_points == nullptr ? zero_point
                                  : portable::index_at(*zero_points, static_cast<int64_t>(c));
  }
};

// A call whose arguments the portable kernel's checks accepted: the parameters, how the
// elements group under them (channels = the number of parameters), and the quantized range.
struct AffineCall {
  AffineShape shape;
  ChannelParams params;
  int64_t quant_min;
  int64_t quant_max;
  ScalarType quant_type;
};

// Atlas inference products (310P) compute floats in saturation mode only (docs/ascend.md).
bool saturates_float() { return std::strncmp(platform().soc_name, "Ascend310P", 10) == 0; }

QuantDtype quant_dtype_of(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Byte:
      return QuantDtype::UInt8;
    case ScalarType::Char:
      return QuantDtype::Int8;
    case ScalarType::Short:
      return QuantDtype::Int16;
    case ScalarType::UInt16:
      return QuantDtype::UInt16;
    default:
      return QuantDtype::Int32;  // the checks leave no other dtype
  }
}

// The floating dtype of the input (quantize) or out (dequantize) on the device.
bool accept_float_dtype(KernelRuntimeContext& ctx, ScalarType dtype, DeviceDtype* device) {
  if (dtype == ScalarType::Double) return decline(ctx, "Double (the vector unit has no double)");
  return accept_dtype(ctx, dtype, /*int32_ok=*/false, device);
}

void put_float(uint32_t* word, float value) { std::memcpy(word, &value, sizeof(value)); }

void put_int(uint32_t* word, int64_t value) {
  const int32_t narrow = static_cast<int32_t>(value);
  std::memcpy(word, &narrow, sizeof(narrow));
}

// Stages `input` as the tiling's rows, launches the entry of `direction` and `float_dtype`, and
// writes the rows back into `out`. words(channel, record) fills a channel's kAffineParamWords
// parameter words.
template <typename Words>
void run_affine(KernelRuntimeContext& ctx, AffineDirection direction, DeviceDtype float_dtype,
                const QuantizeTiling& tiling, const Words& words, const Tensor& input,
                Tensor& out) {
  const size_t in_size = input.element_size();
  const size_t out_size = out.element_size();
  const uint64_t rows = tiling.split.rows;
  const uint64_t pitch = tiling.split.pitch;
  const bool flat = staged_flat(tiling);
  const uint64_t row_length = staged_row_length(tiling);
  const bool gathered = !flat && row_length == 0;
  const size_t param_bytes = param_words(tiling) * sizeof(uint32_t);
  const size_t widest = in_size > out_size ? in_size : out_size;
  const size_t staged_bytes = gathered ? rows * pitch * widest : 0;
  auto* memory =
      static_cast<uint8_t*>(staging_memory(ctx, param_bytes + staged_bytes, "the parameters"));
  if (memory == nullptr) return;
  auto* param = reinterpret_cast<uint32_t*>(memory);
  uint8_t* staged = memory + param_bytes;
  if (tiling.column_mode == 0) {
    for (uint64_t c = 0; c < tiling.channels; ++c) words(c, param + c * kAffineParamWords);
  } else {
    std::memset(param, 0, param_bytes);  // the padding columns compute 0 from 0
    uint32_t record[kAffineParamWords];
    for (uint64_t column = 0; column < tiling.columns; ++column) {
      words(column / tiling.inner, record);
      uint32_t* plane = param + column / pitch * kAffineParamWords * pitch + column % pitch;
      for (uint32_t w = 0; w < kAffineParamWords; ++w) plane[w * pitch] = record[w];
    }
  }

  const auto* in = static_cast<const uint8_t*>(input.const_data_ptr());
  const uint64_t numel = static_cast<uint64_t>(input.numel());
  DeviceBuffer x, y, p, t;
  bool uploaded = false;
  if (flat) {
    uploaded = x.upload(ctx, in, numel * in_size, rows * pitch * in_size);
  } else if (!gathered) {
    uploaded = x.upload_rows(ctx, in, rows, row_length * in_size, pitch * in_size);
  } else {
    std::memset(staged, 0, rows * pitch * in_size);
    for (uint64_t r = 0; r < rows; ++r) {
      const StagedRun run = staged_run(tiling, r);
      std::memcpy(staged + r * pitch * in_size, in + run.source * in_size, run.count * in_size);
    }
    uploaded = x.upload(ctx, staged, rows * pitch * in_size);
  }
  if (!uploaded || !y.allocate(ctx, rows * pitch * out_size) ||
      !p.upload(ctx, param, param_bytes) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return;
  }
  if (!finish_launch(ctx, launch_affine(affine_key(direction, float_dtype), tiling.split.block_dim,
                                        x.get(), p.get(), y.get(), t.get()))) {
    return;
  }
  auto* result = static_cast<uint8_t*>(out.mutable_data_ptr());
  if (flat) {
    (void)y.download(ctx, result, numel * out_size);
  } else if (!gathered) {
    (void)y.download_rows(ctx, result, rows, row_length * out_size, pitch * out_size);
  } else if (y.download(ctx, staged, rows * pitch * out_size)) {
    for (uint64_t r = 0; r < rows; ++r) {
      const StagedRun run = staged_run(tiling, r);
      std::memcpy(result + run.source * out_size, staged + r * pitch * out_size,
                  run.count * out_size);
    }
  }
}

// Quantizes `input` into `out` (the checks passed): declines what the device cannot compute
// exactly, else runs the kernel.
void quantize(KernelRuntimeContext& ctx, const AffineCall& call, const Tensor& input, Tensor& out) {
  DeviceDtype float_dtype;
  if (!accept_float_dtype(ctx, input.scalar_type(), &float_dtype) ||
      !accept_input(ctx, input, "input", input.scalar_type()) ||
      !accept_tensor(ctx, out, "out", call.quant_type)) {
    return;
  }
  const QuantDtype quant = quant_dtype_of(call.quant_type);
  for (uint64_t c = 0; c < call.shape.channels; ++c) {
    const double scale = call.params.scale_of(c);
    const int64_t zero_point = call.params.zero_point_of(c);
    // A scale below float's smallest values has an infinite float inverse, which makes 0 * inf
    // a NaN: quant_min on Ascend910B as in the portable kernel, but 0 under saturation.
    if (saturates_float() && !std::isfinite(1.0f / static_cast<float>(scale))) {
      decline(ctx, "a scale of %g, whose float inverse is infinite (the vector unit saturates it)",
              scale);
      return;
    }
    if (quant == QuantDtype::Int32 &&
        (call.quant_min - zero_point < INT32_MIN || call.quant_max - zero_point > INT32_MAX)) {
      decline(ctx,
              "an Int32 zero point of %lld with [quant_min, quant_max] = [%lld, %lld] (the "
              "range it shifts leaves int32, the vector unit's widest integer)",
              static_cast<long long>(zero_point), static_cast<long long>(call.quant_min),
              static_cast<long long>(call.quant_max));
      return;
    }
  }
  if (!resize_or_fail(ctx, out, input.sizes()) || input.numel() == 0) return;
  const Platform device = platform();
  const QuantizeTiling tiling = quantize_tiling(AffineDirection::Quantize, float_dtype, quant,
                                                call.shape, device.ub_bytes, device.vector_cores);
  const auto words = [&](uint64_t c, uint32_t* record) {
    const int64_t zero_point = call.params.zero_point_of(c);
    const int64_t low = call.quant_min - zero_point;
    const int64_t high = call.quant_max - zero_point;
    put_float(record + kQuantInvScale, 1.0f / static_cast<float>(call.params.scale_of(c)));
    put_int(record + kQuantLow, low < INT32_MIN ? INT32_MIN : low);
    put_int(record + kQuantHigh, high > INT32_MAX ? INT32_MAX : high);
    put_int(record + kQuantZeroPoint, zero_point);
  };
  run_affine(ctx, AffineDirection::Quantize, float_dtype, tiling, words, input, out);
}

// The smallest and largest value of an Int32 tensor (numel > 0).
void int32_range(const Tensor& input, int64_t* low, int64_t* high) {
  const int32_t* data = input.const_data_ptr<int32_t>();
  int32_t lo = data[0];
  int32_t hi = data[0];
  for (int64_t i = 1; i < input.numel(); ++i) {
    lo = data[i] < lo ? data[i] : lo;
    hi = data[i] > hi ? data[i] : hi;
  }
  *low = lo;
  *high = hi;
}

// Whether float(magnitude) * scale, rounded into `dtype`, is finite.
bool product_fits(double magnitude, double scale, ScalarType dtype) {
  const float product = static_cast<float>(magnitude) * static_cast<float>(scale);
  if (dtype == ScalarType::Half) return std::isfinite(static_cast<float>(Half(product)));
  return std::isfinite(product);
}

// Dequantizes `input` into `out` (the checks passed): declines what the device cannot compute
// exactly, else runs the kernel.
void dequantize(KernelRuntimeContext& ctx, const AffineCall& call, const Tensor& input,
                Tensor& out) {
  DeviceDtype float_dtype;
  const ScalarType out_type = out.scalar_type();
  if (!accept_float_dtype(ctx, out_type, &float_dtype) ||
      !accept_tensor(ctx, input, "input", call.quant_type) ||
      !accept_tensor(ctx, out, "out", out_type)) {
    return;
  }
  const QuantDtype quant = quant_dtype_of(call.quant_type);
  // The values q can take: the dtype's range, or for Int32 the input's own.
  const std::optional<portable::QuantBounds> bounds = portable::quant_bounds(call.quant_type);
  int64_t low = bounds->min;
  int64_t high = bounds->max;
  if (quant == QuantDtype::Int32 && input.numel() > 0) int32_range(input, &low, &high);
  for (uint64_t c = 0; c < call.shape.channels; ++c) {
    const int64_t zero_point = call.params.zero_point_of(c);
    if (quant == QuantDtype::Int32 && (-zero_point > INT32_MAX || low - zero_point < INT32_MIN ||
                                       high - zero_point > INT32_MAX)) {
      decline(ctx,
              "Int32 values in [%lld, %lld] with a zero point of %lld (q - zero_point leaves "
              "int32, the vector unit's widest integer)",
              static_cast<long long>(low), static_cast<long long>(high),
              static_cast<long long>(zero_point));
      return;
    }
    const double scale = call.params.scale_of(c);
    const int64_t below = zero_point - low;
    const int64_t above = high - zero_point;
    const double largest = static_cast<double>(below > above ? below : above);
    if (saturates_float() && !product_fits(largest, scale, out_type)) {
      decline(ctx, "a scale of %g, whose products overflow %s (the vector unit saturates them)",
              scale, to_string(out_type));
      return;
    }
  }
  if (!resize_or_fail(ctx, out, input.sizes()) || input.numel() == 0) return;
  const Platform device = platform();
  const QuantizeTiling tiling = quantize_tiling(AffineDirection::Dequantize, float_dtype, quant,
                                                call.shape, device.ub_bytes, device.vector_cores);
  const auto words = [&](uint64_t c, uint32_t* record) {
    const int64_t zero_point = call.params.zero_point_of(c);
    put_float(record + kDequantScale, static_cast<float>(call.params.scale_of(c)));
    put_float(record + kDequantNegZeroFloat, static_cast<float>(-zero_point));
    put_int(record + kDequantNegZeroInt, -zero_point > INT32_MAX ? 0 : -zero_point);
    record[3] = 0;
  };
  run_affine(ctx, AffineDirection::Dequantize, float_dtype, tiling, words, input, out);
}

// A per-channel shape: the sizes before `dim`, its size, the sizes after (portable's
// blocks_along).
AffineShape along(const Tensor& input, int64_t dim) {
  AffineShape shape{1, static_cast<uint64_t>(input.size(dim)), 1};
  for (int64_t d = 0; d < dim; ++d) shape.outer *= static_cast<uint64_t>(input.size(d));
  for (int64_t d = dim + 1; d < input.dim(); ++d) {
    shape.inner *= static_cast<uint64_t>(input.size(d));
  }
  return shape;
}

AffineShape whole(const Tensor& input) { return {1, 1, static_cast<uint64_t>(input.numel())}; }

AffineShape per_token(const Tensor& input, int64_t tokens) {
  return {1, static_cast<uint64_t>(tokens), static_cast<uint64_t>(input.size(input.dim() - 1))};
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

using portable::check_dequantize_arguments;
using portable::check_per_channel;
using portable::check_per_tensor_numbers;
using portable::check_per_tensor_tensors;
using portable::check_per_token;
using portable::check_quantize_arguments;

Tensor& quantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                ScalarType dtype, Tensor& out) {
  KernelRuntimeContext checks;
  if (!check_per_tensor_numbers(checks, scale, zero_point, quant_min, quant_max, dtype) ||
      !check_quantize_arguments(checks, input, quant_min, quant_max, dtype, out)) {
    refused(ctx, checks);
    return out;
  }
  ChannelParams params;
  params.scale = scale;
  params.zero_point = zero_point;
  quantize(ctx, {whole(input), params, quant_min, quant_max, dtype}, input, out);
  return out;
}

Tensor& quantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                       const Tensor& scale, const Tensor& zero_point,
                                       int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                       Tensor& out) {
  KernelRuntimeContext checks;
  if (!check_per_tensor_tensors(checks, scale, zero_point, quant_min, quant_max, dtype) ||
      !check_quantize_arguments(checks, input, quant_min, quant_max, dtype, out)) {
    refused(ctx, checks);
    return out;
  }
  ChannelParams params;
  params.scale = portable::scale_at(scale, 0);
  params.zero_point = portable::index_at(zero_point, 0);
  quantize(ctx, {whole(input), params, quant_min, quant_max, dtype}, input, out);
  return out;
}

Tensor& dequantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                  int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                  ScalarType dtype, std::optional<ScalarType> out_dtype,
                                  Tensor& out) {
  KernelRuntimeContext checks;
  if (!check_per_tensor_numbers(checks, scale, zero_point, quant_min, quant_max, dtype) ||
      !check_dequantize_arguments(checks, input, quant_min, quant_max, dtype, out_dtype, out)) {
    refused(ctx, checks);
    return out;
  }
  ChannelParams params;
  params.scale = scale;
  params.zero_point = zero_point;
  dequantize(ctx, {whole(input), params, quant_min, quant_max, dtype}, input, out);
  return out;
}

Tensor& dequantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                         const Tensor& scale, const Tensor& zero_point,
                                         int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                         std::optional<ScalarType> out_dtype, Tensor& out) {
  KernelRuntimeContext checks;
  if (!check_per_tensor_tensors(checks, scale, zero_point, quant_min, quant_max, dtype) ||
      !check_dequantize_arguments(checks, input, quant_min, quant_max, dtype, out_dtype, out)) {
    refused(ctx, checks);
    return out;
  }
  ChannelParams params;
  params.scale = portable::scale_at(scale, 0);
  params.zero_point = portable::index_at(zero_point, 0);
  dequantize(ctx, {whole(input), params, quant_min, quant_max, dtype}, input, out);
  return out;
}

Tensor& quantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t axis,
                                 int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                 Tensor& out) {
  KernelRuntimeContext checks;
  int64_t dim = 0;
  if (!check_per_channel(checks, input, scales, zero_points, axis, quant_min, quant_max, dtype,
                         &dim) ||
      !check_quantize_arguments(checks, input, quant_min, quant_max, dtype, out)) {
    refused(ctx, checks);
    return out;
  }
  ChannelParams params;
  params.scales = &scales;
  params.zero_points = &zero_points;
  quantize(ctx, {along(input, dim), params, quant_min, quant_max, dtype}, input, out);
  return out;
}

Tensor& dequantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const Tensor& scales, const std::optional<Tensor>& zero_points,
                                   int64_t axis, int64_t quant_min, int64_t quant_max,
                                   ScalarType dtype, std::optional<ScalarType> out_dtype,
                                   Tensor& out) {
  KernelRuntimeContext checks;
  int64_t dim = 0;
  if (!check_per_channel(checks, input, scales, zero_points, axis, quant_min, quant_max, dtype,
                         &dim) ||
      !check_dequantize_arguments(checks, input, quant_min, quant_max, dtype, out_dtype, out)) {
    refused(ctx, checks);
    return out;
  }
  ChannelParams params;
  params.scales = &scales;
  params.zero_points = zero_points.has_value() ? &*zero_points : nullptr;
  dequantize(ctx, {along(input, dim), params, quant_min, quant_max, dtype}, input, out);
  return out;
}

Tensor& quantize_per_token_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scales,
                               const Tensor& zero_points, int64_t quant_min, int64_t quant_max,
                               ScalarType dtype, Tensor& out) {
  KernelRuntimeContext checks;
  int64_t tokens = 0;
  if (!check_per_token(checks, input, scales, zero_points, quant_min, quant_max, dtype, &tokens) ||
      !check_quantize_arguments(checks, input, quant_min, quant_max, dtype, out)) {
    refused(ctx, checks);
    return out;
  }
  ChannelParams params;
  params.scales = &scales;
  params.zero_points = &zero_points;
  quantize(ctx, {per_token(input, tokens), params, quant_min, quant_max, dtype}, input, out);
  return out;
}

Tensor& dequantize_per_token_out(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t quant_min,
                                 int64_t quant_max, ScalarType dtype, ScalarType output_dtype,
                                 Tensor& out) {
  KernelRuntimeContext checks;
  int64_t tokens = 0;
  if (!check_per_token(checks, input, scales, zero_points, quant_min, quant_max, dtype, &tokens) ||
      !check_dequantize_arguments(checks, input, quant_min, quant_max, dtype,
                                  std::optional<ScalarType>(output_dtype), out)) {
    refused(ctx, checks);
    return out;
  }
  ChannelParams params;
  params.scales = &scales;
  params.zero_points = &zero_points;
  dequantize(ctx, {per_token(input, tokens), params, quant_min, quant_max, dtype}, input, out);
  return out;
}

}  // namespace kiln::ascend::native
