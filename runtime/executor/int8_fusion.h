// Load-time int8 fusion (docs/quantized.md, "Int8 calls"): what the calls of a dequantize ->
// convolution / linear [-> activation] -> quantize chain must be for Method::load to run the
// chain as one int8 call, as pure functions of each call's operator and arguments (the
// arguments' values are read now: the caller checks that no instruction writes them).
// load_optimizer.cpp decides where they apply.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernel/int8_conv.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln {

// quantized_decomposed::dequantize_per_tensor.out of an int8 tensor into Float, or
// quantize_per_tensor.out of a Float tensor into int8: its number arguments as the portable
// kernels use them (the scale as a float, a positive finite one; the zero point within an
// int8 range [quant_min, quant_max]).
struct PerTensorCall {
  size_t input;  // positions among the call's arguments
  size_t out;
  float scale;
  int32_t zero_point;
  int32_t quant_min;
  int32_t quant_max;
};
bool int8_dequantize_of(const char* op, Span<EValue*> arguments, PerTensorCall* call);
// Whether two calls quantize onto the same integers: one scale, zero point and range.
inline bool same_grid(const PerTensorCall& a, const PerTensorCall& b) {
  return a.scale == b.scale && a.zero_point == b.zero_point && a.quant_min == b.quant_min &&
         a.quant_max == b.quant_max;
}
bool int8_quantize_of(const char* op, Span<EValue*> arguments, PerTensorCall* call);

// aten::convolution.out (2-D, not transposed, groups 1 or depthwise, Float), aten::linear.out or
// aten::addmm.out (beta 1, alpha 1, a 1-D bias, a 2-D input): where its input, weight, bias and
// out are, and the geometry of the int8 call that would replace it (channels and quantization
// left for the caller). An addmm's weight is [in, out]: the transpose of the int8 weight.
struct MatmulCall {
  size_t input;
  size_t weight;
  size_t bias;  // kNoBias for none
  size_t out;
  bool weight_transposed;
  Int8ConvShape shape;
};
constexpr size_t kNoBias = ~size_t{0};
bool int8_matmul_of(const char* op, Span<EValue*> arguments, MatmulCall* call);

// quantized_decomposed::dequantize_per_channel.out of a constant int8 weight along axis 0 with
// zero points absent or all 0 (symmetric, as PT2E's per-channel weights are): the weight, its
// scales (Float or Double, one per out channel) and its out.
struct ChannelWeights {
  const Tensor* weight;
  const Tensor* scales;
  size_t out;  // position of its out
};
bool int8_weights_of(const char* op, Span<EValue*> arguments, ChannelWeights* weights);

// Whether aten::permute_copy.out swaps the two dims of a 2-D tensor (the transpose an exported
// linear puts before its addmm); its input is argument 0, its out argument 2.
bool is_transpose(const char* op, Span<EValue*> arguments);

// Narrows [*out_min, *out_max] to the quantized values of `clamp`'s bounds (an activation
// between the convolution and the quantize: quantizing is monotonic, so clamping the float
// results and then quantizing equals quantizing and then clamping to the quantized bounds).
// False when the range would be empty.
bool narrow_to_clamp(const KernelRuntimeContext::OutputClamp& clamp, const PerTensorCall& quantize,
                     int32_t* out_min, int32_t* out_max);

}  // namespace kiln
