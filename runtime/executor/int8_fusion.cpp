// What an int8 chain's calls must be (see int8_fusion.h).
#include "runtime/executor/int8_fusion.h"

#include <cmath>
#include <cstring>

#include "runtime/core/scalar_type.h"

namespace kiln {
namespace {

bool is_int8_range(const EValue& low, const EValue& high) {
  return low.isInt() && high.isInt() && low.toInt() >= -128 && low.toInt() <= high.toInt() &&
         high.toInt() <= 127;
}

// The shared arguments (input, scale, zero_point, quant_min, quant_max, dtype, ...).
bool per_tensor_numbers(Span<EValue*> a, PerTensorCall* call) {
  if (!a[0]->isTensor() || !a[1]->isDouble() || !a[2]->isInt() || !is_int8_range(*a[3], *a[4]) ||
      !a[5]->isInt() || a[5]->toInt() != static_cast<int64_t>(ScalarType::Char)) {
    return false;
  }
  const double scale = a[1]->toDouble();
  const int64_t zero_point = a[2]->toInt();
  const auto scale_f = static_cast<float>(scale);
  // The kernels refuse these; the fused call would not, so they stay unfused.
  if (!(scale > 0) || !std::isfinite(scale_f) || scale_f <= 0.0f || zero_point < a[3]->toInt() ||
      zero_point > a[4]->toInt()) {
    return false;
  }
  call->input = 0;
  call->scale = scale_f;
  call->zero_point = static_cast<int32_t>(zero_point);
  call->quant_min = static_cast<int32_t>(a[3]->toInt());
  call->quant_max = static_cast<int32_t>(a[4]->toInt());
  return true;
}

bool is_contiguous_tensor(const EValue& value, ScalarType dtype) {
  if (!value.isTensor()) return false;
  const Tensor& tensor = value.toTensor();
  const auto order = tensor.dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != static_cast<DimOrderType>(d)) return false;
  }
  return tensor.scalar_type() == dtype;
}

// A convolution's stride, padding or dilation: one or two numbers in [low, kMaxGeometry]. The
// bound (far above any real network's) keeps the int8 call's size arithmetic from overflowing on
// a damaged program's numbers; a call outside it runs unfused, and its kernel refuses it.
constexpr int64_t kMaxGeometry = int64_t{1} << 24;

bool int_pair(const EValue& value, int64_t pair[2], int64_t low) {
  if (value.tag() != Tag::ListInt) return false;
  const auto list = value.toIntList();
  if (list.size() != 1 && list.size() != 2) return false;
  pair[0] = list[0];
  pair[1] = list[list.size() - 1];
  return pair[0] >= low && pair[1] >= low && pair[0] <= kMaxGeometry && pair[1] <= kMaxGeometry;
}

}  // namespace

bool int8_dequantize_of(const char* op, Span<EValue*> arguments, PerTensorCall* call) {
  // dequantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *,
  // out_dtype=None, out)
  if (std::strcmp(op, "quantized_decomposed::dequantize_per_tensor.out") != 0 ||
      arguments.size() != 8 || !per_tensor_numbers(arguments, call)) {
    return false;
  }
  const EValue& out_dtype = *arguments[6];
  if (!out_dtype.isNone() &&
      !(out_dtype.isInt() && out_dtype.toInt() == static_cast<int64_t>(ScalarType::Float))) {
    return false;
  }
  call->out = 7;
  return is_contiguous_tensor(*arguments[0], ScalarType::Char) &&
         is_contiguous_tensor(*arguments[7], ScalarType::Float);
}

bool int8_quantize_of(const char* op, Span<EValue*> arguments, PerTensorCall* call) {
  // quantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *, out)
  if (std::strcmp(op, "quantized_decomposed::quantize_per_tensor.out") != 0 ||
      arguments.size() != 7 || !per_tensor_numbers(arguments, call)) {
    return false;
  }
  call->out = 6;
  return is_contiguous_tensor(*arguments[0], ScalarType::Float) &&
         is_contiguous_tensor(*arguments[6], ScalarType::Char);
}

bool int8_matmul_of(const char* op, Span<EValue*> a, MatmulCall* call) {
  Int8ConvShape& shape = call->shape;
  shape = {};
  for (int d = 0; d < 2; ++d) {
    shape.kernel[d] = shape.stride[d] = shape.dilation[d] = 1;
    shape.padding[d] = 0;
  }
  call->weight_transposed = false;
  if (std::strcmp(op, "aten::convolution.out") == 0 && a.size() == 10) {
    // convolution.out(input, weight, bias?, stride, padding, dilation, transposed,
    // output_padding, groups, *, out)
    if (!a[6]->isBool() || a[6]->toBool() || !a[8]->isInt() || a[8]->toInt() < 1 ||
        !int_pair(*a[3], shape.stride, 1) || !int_pair(*a[4], shape.padding, 0) ||
        !int_pair(*a[5], shape.dilation, 1) || !is_contiguous_tensor(*a[1], ScalarType::Float) ||
        a[1]->toTensor().dim() != 4 || !is_contiguous_tensor(*a[0], ScalarType::Float) ||
        a[0]->toTensor().dim() != 4) {
      return false;
    }
    *call = {0, 1, a[2]->isNone() ? kNoBias : 2, 9, false, shape};
    call->shape.kernel[0] = a[1]->toTensor().size(2);
    call->shape.kernel[1] = a[1]->toTensor().size(3);
  } else if (std::strcmp(op, "aten::linear.out") == 0 && a.size() == 4) {
    // linear.out(input, weight, bias?, *, out)
    *call = {0, 1, a[2]->isNone() ? kNoBias : 2, 3, false, shape};
    call->shape.linear = true;
  } else if (std::strcmp(op, "aten::addmm.out") == 0 && a.size() == 6) {
    // addmm.out(self, mat1, mat2, *, beta=1, alpha=1, out): self is the bias.
    auto is_one = [](const EValue& v) {
      return (v.isInt() && v.toInt() == 1) || (v.isDouble() && v.toDouble() == 1.0);
    };
    if (!is_one(*a[3]) || !is_one(*a[4]) || !is_contiguous_tensor(*a[0], ScalarType::Float) ||
        a[0]->toTensor().dim() != 1 || !is_contiguous_tensor(*a[1], ScalarType::Float) ||
        a[1]->toTensor().dim() != 2) {
      return false;
    }
    *call = {1, 2, 0, 5, true, shape};
    call->shape.linear = true;
  } else {
    return false;
  }
  if (!is_contiguous_tensor(*a[call->weight], ScalarType::Float) ||
      !is_contiguous_tensor(*a[call->out], ScalarType::Float) ||
      !is_contiguous_tensor(*a[call->input], ScalarType::Float)) {
    return false;
  }
  const Tensor& weight = a[call->weight]->toTensor();
  if (call->shape.linear && weight.dim() != 2) return false;
  const int64_t out_dim = call->weight_transposed ? 1 : 0;
  call->shape.out_channels = weight.size(out_dim);
  call->shape.in_channels = call->shape.linear ? weight.size(1 - out_dim) : weight.size(1);
  if (!call->shape.linear && a[8]->toInt() != 1) {
    // Depthwise: one filter per channel (a channel multiplier of 1).
    const int64_t groups = a[8]->toInt();
    if (weight.size(1) != 1 || weight.size(0) != groups ||
        a[call->input]->toTensor().size(1) != groups) {
      return false;
    }
    call->shape.depthwise = true;
    call->shape.in_channels = groups;
  }
  if (call->bias != kNoBias) {
    if (!is_contiguous_tensor(*a[call->bias], ScalarType::Float)) return false;
    const Tensor& bias = a[call->bias]->toTensor();
    if (bias.dim() != 1 || bias.size(0) != call->shape.out_channels) return false;
  }
  return true;
}

bool int8_weights_of(const char* op, Span<EValue*> a, ChannelWeights* weights) {
  // dequantize_per_channel.out(input, scales, zero_points?, axis, quant_min, quant_max, dtype,
  // *, out_dtype=None, out)
  if (std::strcmp(op, "quantized_decomposed::dequantize_per_channel.out") != 0 || a.size() != 9 ||
      !is_contiguous_tensor(*a[0], ScalarType::Char) || !a[3]->isInt() || a[3]->toInt() != 0 ||
      !is_int8_range(*a[4], *a[5]) || !a[1]->isTensor() ||
      !is_contiguous_tensor(*a[8], ScalarType::Float)) {
    return false;
  }
  const Tensor& weight = a[0]->toTensor();
  const Tensor& scales = a[1]->toTensor();
  const bool float_scales =
      scales.scalar_type() == ScalarType::Float || scales.scalar_type() == ScalarType::Double;
  if (weight.dim() < 1 || !float_scales || scales.dim() != 1 || scales.size(0) != weight.size(0)) {
    return false;
  }
  if (!a[2]->isNone()) {
    if (!a[2]->isTensor()) return false;
    const Tensor& zero_points = a[2]->toTensor();
    if (zero_points.numel() != weight.size(0)) return false;
    for (int64_t c = 0; c < zero_points.numel(); ++c) {
      const int64_t zero_point =
          zero_points.scalar_type() == ScalarType::Long  ? zero_points.const_data_ptr<int64_t>()[c]
          : zero_points.scalar_type() == ScalarType::Int ? zero_points.const_data_ptr<int32_t>()[c]
                                                         : 1;
      if (zero_point != 0) return false;
    }
  }
  *weights = {&weight, &scales, 8};
  return true;
}

bool is_transpose(const char* op, Span<EValue*> a) {
  if (std::strcmp(op, "aten::permute_copy.out") != 0 || a.size() != 3 ||
      a[1]->tag() != Tag::ListInt) {
    return false;
  }
  const auto dims = a[1]->toIntList();
  return a[0]->isTensor() && a[0]->toTensor().dim() == 2 && dims.size() == 2 &&
         ((dims[0] == 1 || dims[0] == -1) && (dims[1] == 0 || dims[1] == -2));
}

bool narrow_to_clamp(const KernelRuntimeContext::OutputClamp& clamp, const PerTensorCall& quantize,
                     int32_t* out_min, int32_t* out_max) {
  const float inv = 1.0f / quantize.scale;
  auto quantized = [&](double bound) {
    // As the activation stores its bound (converted to the Float out) and the quantize kernel
    // then maps it.
    const float product = inv * static_cast<float>(bound);
    double q = quantize.zero_point + static_cast<double>(std::nearbyint(product));
    return q;
  };
  if (std::isfinite(static_cast<float>(clamp.min))) {
    const double q = quantized(clamp.min);
    if (q > *out_min) *out_min = q > *out_max ? *out_max + 1 : static_cast<int32_t>(q);
  }
  if (std::isfinite(static_cast<float>(clamp.max))) {
    const double q = quantized(clamp.max);
    if (q < *out_max) *out_max = q < *out_min ? *out_min - 1 : static_cast<int32_t>(q);
  }
  return *out_min <= *out_max;
}

}  // namespace kiln
