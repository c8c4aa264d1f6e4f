// Affine quantization and dequantization, ExecuTorch's arithmetic, for every granularity its
// operators have: per tensor, per channel (along an axis) and per token (the last dimension).
//
//   quantize:   q = clamp(zero_point + nearbyint(float(inv_scale * x)), quant_min, quant_max),
//               inv_scale = 1.0f / float(scale); NaN gives quant_min
//   dequantize: x = out_dtype(float(q - zero_point) * float(scale))
//
// Each granularity is the same loop over blocks: a contiguous tensor seen as [outer, channels,
// inner], where channel c takes parameter c (per tensor: one channel of every element; per
// channel along axis a: the sizes before a, size(a), the sizes after; per token: [1, tokens,
// token size]). The callers have checked the arguments (util/quantized/arguments.h).
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// How a tensor's elements group under their parameters (see above).
struct AffineBlocks {
  int64_t outer;
  int64_t channels;
  int64_t inner;
};

// A blocks view of `input`: per channel along `axis` (which must be a dimension of `input`).
AffineBlocks blocks_along(const Tensor& input, int64_t axis);

// The affine parameters of each channel: tensors of `channels` values (Float or Double scales,
// Int or Long zero points), or one number for all; no zero points means zero.
struct AffineParams {
  const Tensor* scales = nullptr;       // null: `scale` for every channel
  const Tensor* zero_points = nullptr;  // null: `zero_point` for every channel
  double scale = 1.0;
  int64_t zero_point = 0;

  double scale_of(int64_t channel) const;
  int64_t zero_point_of(int64_t channel) const;
};

// out (quantized dtype, input's shape) = input (Float, Double, Half or BFloat16) quantized.
void quantize_affine(const KernelRuntimeContext& ctx, const Tensor& input,
                     const AffineParams& params, AffineBlocks blocks, int64_t quant_min,
                     int64_t quant_max, Tensor& out);

// out (Float, Double, Half or BFloat16, input's shape) = input (quantized dtype) dequantized,
// then clamped to `clamp` when given (a fused activation's, for Float and Double outs).
void dequantize_affine(const KernelRuntimeContext& ctx, const Tensor& input,
                       const AffineParams& params, AffineBlocks blocks,
                       const KernelRuntimeContext::OutputClamp* clamp, Tensor& out);

}  // namespace kiln::portable
