// Argument checks and geometry shared by convolution.out and convolution_backward.out, with
// ATen's messages.
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// A 1-D or 2-D (transposed) convolution, height first: a 1-D one has height 1 and neutral
// height parameters. `group_in` / `group_out` are the input / output channels per group.
struct ConvShape {
  int64_t spatial;
  int64_t stride[2], padding[2], dilation[2], output_padding[2];
  int64_t batches, in_channels, out_channels, groups, group_in, group_out;
  int64_t height, width;
  int64_t kernel_h, kernel_w;
  int64_t out_h, out_w;  // set by conv_output_size
};

// Checks the weight's rank (1-D or 2-D convolutions), expands stride / padding / dilation /
// output_padding (1 or `spatial` values each), checks them, input's rank and the group and
// channel counts against the weight, and fills `shape` (all but the output size).
bool conv_geometry(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                   IntArrayRef output_padding, int64_t groups, ConvShape* shape);

// The output's spatial size (out_h, out_w), checking that it is positive (and, transposed, the
// output padding).
bool conv_output_size(KernelRuntimeContext& ctx, bool transposed, ConvShape* shape);

}  // namespace kiln::portable
