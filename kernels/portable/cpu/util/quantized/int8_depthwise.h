// The depthwise int8 convolution of the fused int8 calls (int8_conv.h): each channel's own
// filter over its own plane, sums of (x - zero point) * w exact in int32, requantized as the
// gemm's are (int8_gemm.h). Plain C++; the compiler's AVX2 clone vectorises its loops, which run
// over a whole plane at a time (below) rather than along rows too short to fill vectors.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/portable/cpu/util/quantized/int8_gemm.h"

namespace kiln::portable {

// The strides must be equal (j's one stride stands for both).
struct Int8DepthwiseArgs {
  const int8_t* x;  // one image [channels][height][width]
  const int8_t* w;  // channel c's kernel h * kernel w taps at w + c * w_stride
  int64_t w_stride;
  int64_t height, width, out_height, out_width;
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  int32_t input_zero_point;
  Int8GemmArgs requantize;  // its scale, bias, inv_out_scale, low, high, out_zero_point
  int8_t* out;              // [channels][out height][out width]
};

// The scratch one worker of int8_depthwise needs: the padded plane, the sums and their bytes.
size_t int8_depthwise_scratch_bytes(const Int8DepthwiseArgs& args);

// Channels [begin, end) of `args`, with `scratch` (int8_depthwise_scratch_bytes, 64-byte
// aligned) to itself.
void int8_depthwise(const Int8DepthwiseArgs& args, int64_t begin, int64_t end, void* scratch);

}  // namespace kiln::portable
