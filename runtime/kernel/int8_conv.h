// Int8 convolutions and linears for load-time fusion (docs/quantized.md, "Int8 calls"): the
// interface through which the executor, which fuses dequantize -> convolution / linear ->
// quantize chains into one call, reaches the portable kernels' int8 gemm without depending on
// the kernel library. The portable quantize kernel's source provides the kernels (when it is
// linked, the chains it ends can be fused); a process without them runs such chains unfused.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln {

// One fused call's geometry and quantization, fixed at load. A linear is a 1x1 convolution over
// rows: input [..., in_channels], out [..., out_channels]; a convolution is 2-D, NCHW, groups 1,
// or depthwise (groups = in channels = out channels).
struct Int8ConvShape {
  bool linear;
  bool depthwise;
  int64_t in_channels;
  int64_t out_channels;
  int64_t kernel[2];  // height, width (1, 1 for a linear)
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
  float input_scale;  // the dequantize's: x = float(q - zero_point) * input_scale
  int32_t input_zero_point;
  float output_scale;  // the quantize's: q = zero_point + nearbyint(float(y * (1 / scale)))
  int32_t output_zero_point;
  // The out's range: the quantize's, narrowed by the activation fused between (relu, hardtanh).
  int32_t out_min;
  int32_t out_max;
};

// The weights a plan packs: int8 [out_channels, in_channels, kernel h, kernel w] (row-major; a
// linear's [out_channels, in_channels], a depthwise convolution's [channels, 1, kh, kw]) with one
// scale per out channel (symmetric: zero point 0), and a Float bias per out channel or nullptr.
struct Int8ConvWeights {
  const int8_t* weight;
  const float* scales;
  const float* bias;
};

struct Int8ConvKernels {
  // The bytes plan() writes for `shape`; 0 when the kernels cannot run it (sums that could
  // overflow int32).
  size_t (*plan_bytes)(const Int8ConvShape& shape);
  // Packs `weights` once, at load, into `plan` (plan_bytes(shape) bytes, 64-byte aligned).
  void (*plan)(const Int8ConvShape& shape, const Int8ConvWeights& weights, void* plan);
  // One run: int8 `input` to int8 `out` (both contiguous, sizes as the program planned them).
  // Reports bad input or missing temporary memory with ctx.fail(). It reads the whole input
  // before it writes the out for a linear, and for a convolution of one image (a batch of 1)
  // that is not depthwise: the out may then share the input's bytes. Convolutions read each
  // image (a depthwise one each channel) before they write it, in order: their out may also
  // start where the input starts when it is no larger.
  void (*run)(KernelRuntimeContext& ctx, const void* plan, const Tensor& input, Tensor& out);
};

// The kernels a linked kernel library provides (nullptr when none does). Set during static
// initialisation, read at load.
const Int8ConvKernels* int8_conv_kernels();
void provide_int8_conv_kernels(const Int8ConvKernels* kernels);

}  // namespace kiln
