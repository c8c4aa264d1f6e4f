// The argument checks of ExecuTorch's quantize / dequantize / qparams operators
// (quantized_decomposed::, custom_ops.yaml): quantized dtypes and their ranges, affine parameters
// (scale, zero point) given as numbers or as tensors, the axis of per-channel parameters.
// Written once for the portable kernels and the ATen-mode ones (kernels/aten/cpu), so both refuse
// the same inputs with the same messages: header-only, over what kiln::Tensor offers in both
// builds (in ATen mode it is at::Tensor). Each check returns true when the arguments are fine;
// otherwise it has called ctx.fail and the kernel returns.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/llm/arguments.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// The integer range of a quantized dtype.
struct QuantBounds {
  int64_t min;
  int64_t max;
};

// The quantized dtypes ExecuTorch's kernels take (uint8, int8, int16, uint16, int32), with their
// ranges; nullopt for any other dtype.
inline std::optional<QuantBounds> quant_bounds(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Byte:
      return QuantBounds{0, 255};
    case ScalarType::Char:
      return QuantBounds{-128, 127};
    case ScalarType::Short:
      return QuantBounds{-32768, 32767};
    case ScalarType::UInt16:
      return QuantBounds{0, 65535};
    case ScalarType::Int:
      return QuantBounds{INT32_MIN, INT32_MAX};
    default:
      return std::nullopt;
  }
}

// `dtype` is a quantized dtype and [quant_min, quant_max] a non-empty range inside it.
inline bool check_quant_range(KernelRuntimeContext& ctx, int64_t quant_min, int64_t quant_max,
                              ScalarType dtype) {
  const std::optional<QuantBounds> bounds = quant_bounds(dtype);
  KILN_KERNEL_CHECK_MSG(ctx, bounds.has_value(), InvalidType, false,
                        "dtype is %s, which is not a quantized dtype; pass torch.uint8, "
                        "torch.int8, torch.int16, torch.uint16 or torch.int32",
                        to_string(dtype));
  KILN_KERNEL_CHECK_MSG(ctx, quant_min <= quant_max, InvalidArgument, false,
                        "quant_min %lld is greater than quant_max %lld; pass quant_min <= "
                        "quant_max",
                        static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  KILN_KERNEL_CHECK_MSG(
      ctx, bounds->min <= quant_min && quant_max <= bounds->max, InvalidArgument, false,
      "[quant_min, quant_max] = [%lld, %lld] leaves the range of %s, [%lld, "
      "%lld]; pass a range inside it",
      static_cast<long long>(quant_min), static_cast<long long>(quant_max), to_string(dtype),
      static_cast<long long>(bounds->min), static_cast<long long>(bounds->max));
  return true;
}

// `tensor` holds quantized values of `dtype`, the dtype argument.
inline bool check_quantized_tensor(KernelRuntimeContext& ctx, const Tensor& tensor,
                                   const char* name, ScalarType dtype) {
  KILN_KERNEL_CHECK_MSG(ctx, tensor.scalar_type() == dtype, InvalidType, false,
                        "%s has dtype %s but the dtype argument says %s; pass them alike", name,
                        to_string(tensor.scalar_type()), to_string(dtype));
  return true;
}

// `tensor` has a floating dtype: Float, Double, Half or BFloat16.
inline bool check_floating(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name) {
  const ScalarType dtype = tensor.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx,
                        dtype == ScalarType::Float || dtype == ScalarType::Double ||
                            dtype == ScalarType::Half || dtype == ScalarType::BFloat16,
                        InvalidType, false,
                        "%s has dtype %s; pass a Float, Double, Half or BFloat16 tensor", name,
                        to_string(dtype));
  return true;
}

// A scale is a positive finite number: the inverse a quantization multiplies by must exist.
inline bool check_scale_value(KernelRuntimeContext& ctx, double scale, const char* name) {
  KILN_KERNEL_CHECK_MSG(ctx, std::isfinite(scale) && scale > 0, InvalidArgument, false,
                        "%s is %g; a quantization scale is a positive finite number", name, scale);
  return true;
}

// A zero point is a value of the quantized range (the quantized value that stands for 0.0).
inline bool check_zero_point_value(KernelRuntimeContext& ctx, int64_t zero_point, int64_t quant_min,
                                   int64_t quant_max, const char* name) {
  KILN_KERNEL_CHECK_MSG(ctx, quant_min <= zero_point && zero_point <= quant_max, InvalidArgument,
                        false,
                        "%s is %lld, outside [quant_min, quant_max] = [%lld, %lld]; pass a zero "
                        "point inside the quantized range",
                        name, static_cast<long long>(zero_point), static_cast<long long>(quant_min),
                        static_cast<long long>(quant_max));
  return true;
}

// Element `i` of a contiguous Float or Double scales tensor.
inline double scale_at(const Tensor& scales, int64_t i) {
  return scales.scalar_type() == ScalarType::Double ? scales.const_data_ptr<double>()[i]
                                                    : scales.const_data_ptr<float>()[i];
}

// Affine parameters given as tensors: `count` scales (Float or Double, positive and finite) and,
// when present, `count` zero points (Int or Long, inside [quant_min, quant_max]), all contiguous.
// `what` says what the count is, for the message ("input.size(1)", "the number of tokens").
inline bool check_qparam_tensors(KernelRuntimeContext& ctx, const Tensor& scales,
                                 const std::optional<Tensor>& zero_points, int64_t count,
                                 const char* what, int64_t quant_min, int64_t quant_max) {
  const ScalarType scale_type = scales.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, scale_type == ScalarType::Float || scale_type == ScalarType::Double,
                        InvalidType, false, "scale has dtype %s; pass a Float or Double tensor",
                        to_string(scale_type));
  if (!check_contiguous(ctx, scales, "scale")) return false;
  KILN_KERNEL_CHECK_MSG(ctx, scales.numel() == count, InvalidArgument, false,
                        "scale has %lld elements but %s is %lld; pass one scale for each",
                        static_cast<long long>(scales.numel()), what,
                        static_cast<long long>(count));
  for (int64_t i = 0; i < count; ++i) {
    if (!check_scale_value(ctx, scale_at(scales, i), "a scale")) return false;
  }
  if (!zero_points.has_value()) return true;
  const ScalarType zero_point_type = zero_points->scalar_type();
  KILN_KERNEL_CHECK_MSG(
      ctx, zero_point_type == ScalarType::Int || zero_point_type == ScalarType::Long, InvalidType,
      false, "zero_point has dtype %s; pass an Int or Long tensor", to_string(zero_point_type));
  if (!check_contiguous(ctx, *zero_points, "zero_point")) return false;
  KILN_KERNEL_CHECK_MSG(ctx, zero_points->numel() == count, InvalidArgument, false,
                        "zero_point has %lld elements but %s is %lld; pass one zero point for each",
                        static_cast<long long>(zero_points->numel()), what,
                        static_cast<long long>(count));
  for (int64_t i = 0; i < count; ++i) {
    if (!check_zero_point_value(ctx, index_at(*zero_points, i), quant_min, quant_max,
                                "a zero point")) {
      return false;
    }
  }
  return true;
}

// `axis` names a dimension of `input` (negative counts from the end); its index in *wrapped.
inline bool check_axis(KernelRuntimeContext& ctx, const Tensor& input, int64_t axis,
                       int64_t* wrapped) {
  const int64_t rank = input.dim();
  KILN_KERNEL_CHECK_MSG(ctx, -rank <= axis && axis < rank, InvalidArgument, false,
                        "axis %lld is out of range for input of shape %s; pass an axis in "
                        "[%lld, %lld]",
                        static_cast<long long>(axis), sizes_text(input).text,
                        static_cast<long long>(-rank), static_cast<long long>(rank - 1));
  *wrapped = axis < 0 ? axis + rank : axis;
  return true;
}

// The number of tokens of a per-token operator's input: the product of all dimensions but the
// last, which holds one token's values.
inline bool count_tokens(KernelRuntimeContext& ctx, const Tensor& input, int64_t* tokens) {
  KILN_KERNEL_CHECK_MSG(ctx, input.dim() >= 1, InvalidArgument, false,
                        "input is 0-dimensional; a per-token operator takes tokens along the "
                        "last dimension: pass a tensor of rank 1 or more");
  int64_t count = 1;
  for (int64_t d = 0; d + 1 < input.dim(); ++d) count *= input.size(d);
  *tokens = count;
  return true;
}

// `out` has the dtype `expected` (the dtype argument of a quantization).
inline bool check_out_is(KernelRuntimeContext& ctx, const Tensor& out, const char* name,
                         ScalarType expected, const char* source) {
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == expected, InvalidType, false,
                        "%s has dtype %s but %s is %s; pass %s of dtype %s", name,
                        to_string(out.scalar_type()), source, to_string(expected), name,
                        to_string(expected));
  return true;
}

// The dtype of a dequantization's out: `out_dtype` when given (out must have it), else any
// floating dtype out has.
inline bool check_dequantized_out(KernelRuntimeContext& ctx, const Tensor& out,
                                  std::optional<ScalarType> out_dtype) {
  if (out_dtype.has_value() && !check_out_is(ctx, out, "out", *out_dtype, "out_dtype")) {
    return false;
  }
  return check_floating(ctx, out, "out");
}

// The common arguments of a quantization: a contiguous floating input, a quantized dtype with
// its range, and an out of that dtype.
inline bool check_quantize_arguments(KernelRuntimeContext& ctx, const Tensor& input,
                                     int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                     const Tensor& out) {
  return check_floating(ctx, input, "input") && check_contiguous(ctx, input, "input") &&
         check_quant_range(ctx, quant_min, quant_max, dtype) &&
         check_out_is(ctx, out, "out", dtype, "dtype");
}

// The common arguments of a dequantization: a contiguous input of the quantized dtype `dtype`,
// its range, and a floating out (of out_dtype when given).
inline bool check_dequantize_arguments(KernelRuntimeContext& ctx, const Tensor& input,
                                       int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                       std::optional<ScalarType> out_dtype, const Tensor& out) {
  return check_quant_range(ctx, quant_min, quant_max, dtype) &&
         check_quantized_tensor(ctx, input, "input", dtype) &&
         check_contiguous(ctx, input, "input") && check_dequantized_out(ctx, out, out_dtype);
}

// The parameters of each granularity, with the dtype's range: checked once for the portable
// and the ATen-mode kernels of the quantize and dequantize operators.

// Per tensor, as numbers.
inline bool check_per_tensor_numbers(KernelRuntimeContext& ctx, double scale, int64_t zero_point,
                                     int64_t quant_min, int64_t quant_max, ScalarType dtype) {
  return check_quant_range(ctx, quant_min, quant_max, dtype) &&
         check_scale_value(ctx, scale, "scale") &&
         check_zero_point_value(ctx, zero_point, quant_min, quant_max, "zero_point");
}

// Per tensor, as one-element tensors (the .Tensor_out overloads).
inline bool check_per_tensor_tensors(KernelRuntimeContext& ctx, const Tensor& scale,
                                     const Tensor& zero_point, int64_t quant_min, int64_t quant_max,
                                     ScalarType dtype) {
  return check_quant_range(ctx, quant_min, quant_max, dtype) &&
         check_qparam_tensors(ctx, scale, zero_point, 1, "a per-tensor quantization's count",
                              quant_min, quant_max);
}

// Per channel along `axis`; *dim: the axis as a dimension index.
inline bool check_per_channel(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scales,
                              const std::optional<Tensor>& zero_points, int64_t axis,
                              int64_t quant_min, int64_t quant_max, ScalarType dtype,
                              int64_t* dim) {
  return check_quant_range(ctx, quant_min, quant_max, dtype) && check_axis(ctx, input, axis, dim) &&
         check_qparam_tensors(ctx, scales, zero_points, input.size(*dim), "input's size along axis",
                              quant_min, quant_max);
}

// Per token; *tokens: their number.
inline bool check_per_token(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scales,
                            const Tensor& zero_points, int64_t quant_min, int64_t quant_max,
                            ScalarType dtype, int64_t* tokens) {
  return check_quant_range(ctx, quant_min, quant_max, dtype) && count_tokens(ctx, input, tokens) &&
         check_qparam_tensors(ctx, scales, zero_points, *tokens, "the number of tokens", quant_min,
                              quant_max);
}

// `out` has exactly dtype `dtype` (the fixed dtypes of choose_qparams' outs).
inline bool check_out_dtype_exact(KernelRuntimeContext& ctx, const Tensor& out, const char* name,
                                  ScalarType dtype) {
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == dtype, InvalidType, false,
                        "%s has dtype %s; pass %s tensor", name, to_string(out.scalar_type()),
                        to_phrase(dtype));
  return true;
}

// choose_qparams' outs: a Double scale and a Long zero point.
inline bool check_qparams_outs(KernelRuntimeContext& ctx, const Tensor& scale_out,
                               const Tensor& zero_point_out) {
  return check_out_dtype_exact(ctx, scale_out, "scale_out", ScalarType::Double) &&
         check_out_dtype_exact(ctx, zero_point_out, "zero_point_out", ScalarType::Long);
}

// choose_qparams.Tensor_out: a contiguous non-empty Float, Half or BFloat16 input and a range of
// at least two quantized values.
inline bool check_choose_qparams_arguments(KernelRuntimeContext& ctx, const Tensor& input,
                                           int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                           const Tensor& scale_out, const Tensor& zero_point_out) {
  if (!check_activation(ctx, input, "input") ||
      !check_quant_range(ctx, quant_min, quant_max, dtype) ||
      !check_qparams_outs(ctx, scale_out, zero_point_out)) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(ctx, quant_min < quant_max, InvalidArgument, false,
                        "quant_min and quant_max are both %lld; a scale needs a range of at least "
                        "two values: pass quant_min < quant_max",
                        static_cast<long long>(quant_min));
  KILN_KERNEL_CHECK_MSG(ctx, input.numel() > 0, InvalidArgument, false,
                        "input of shape %s is empty; quantization parameters need at least one "
                        "value",
                        sizes_text(input).text);
  return true;
}

// choose_qparams_per_token_asymmetric.out: a contiguous Float, Half or BFloat16 input of rank 1
// or more whose tokens (last dimension) are not empty, and dtype int8, the only range it
// chooses for. *tokens: the number of tokens.
inline bool check_per_token_qparams_arguments(KernelRuntimeContext& ctx, const Tensor& input,
                                              ScalarType dtype, const Tensor& scale_out,
                                              const Tensor& zero_point_out, int64_t* tokens) {
  if (!check_activation(ctx, input, "input") ||
      !check_qparams_outs(ctx, scale_out, zero_point_out) || !count_tokens(ctx, input, tokens)) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(ctx, dtype == ScalarType::Char, InvalidArgument, false,
                        "dtype is %s, but choose_qparams_per_token_asymmetric chooses int8 "
                        "parameters (the range [-128, 127]); pass torch.int8",
                        to_string(dtype));
  KILN_KERNEL_CHECK_MSG(ctx, *tokens == 0 || input.size(input.dim() - 1) > 0, InvalidArgument,
                        false,
                        "input of shape %s has tokens of no values; quantization parameters "
                        "need at least one value per token",
                        sizes_text(input).text);
  return true;
}

}  // namespace kiln::portable
