// ATen mode: the (de)quantize arithmetic of ExecuTorch's quantized operators with libtorch's ops,
// rounding where the portable kernels round (kernels/portable/cpu/util/quantized/affine.h), and
// the steps every such kernel shares. The argument checks are the portable kernels' own
// (kernels/portable/cpu/util/quantized/arguments.h).
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/aten/cpu/util/llm.h"
#include "kernels/portable/cpu/util/quantized/arguments.h"

namespace kiln::aten_kernels {

// Per-channel affine parameters: `scales` (floating) and `zero_points` (integer) hold one value
// per channel of a [outer, channels, inner] view of the input.
struct AtenAffine {
  at::Tensor scales;
  at::Tensor zero_points;
  int64_t outer;
  int64_t channels;
  int64_t inner;
};

// The parameters of one scale and zero point for a whole tensor of `numel` elements.
AtenAffine per_tensor(double scale, int64_t zero_point, int64_t numel);
// The parameters given by one-element tensors (the .Tensor_out overloads).
AtenAffine per_tensor(const at::Tensor& scale, const at::Tensor& zero_point, int64_t numel);
// Per channel along `axis` (a valid dimension); no zero points means zero.
AtenAffine per_channel(const at::Tensor& input, const at::Tensor& scales,
                       const std::optional<at::Tensor>& zero_points, int64_t axis);
// Per token: one parameter per row of the last dimension.
AtenAffine per_token(const at::Tensor& input, const at::Tensor& scales,
                     const at::Tensor& zero_points, int64_t tokens);

// Checks the common arguments, quantizes input and stores the result in out (dtype `dtype`).
void quantize_into(KernelRuntimeContext& ctx, const at::Tensor& input, const AtenAffine& affine,
                   int64_t quant_min, int64_t quant_max, at::ScalarType dtype, at::Tensor& out);

// Checks the common arguments, dequantizes input and stores the result in out (dtype
// out_dtype when given, else out's own).
void dequantize_into(KernelRuntimeContext& ctx, const at::Tensor& input, const AtenAffine& affine,
                     int64_t quant_min, int64_t quant_max, at::ScalarType dtype,
                     std::optional<at::ScalarType> out_dtype, at::Tensor& out);

}  // namespace kiln::aten_kernels
