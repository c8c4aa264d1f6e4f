// Argument parsing and output geometry shared by the 2-D pooling kernels, with ATen's checks.
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// A pooling window over the last two dims of a [N,] C, H, W tensor, height first.
struct Pool2dGeometry {
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
  int64_t planes;  // N * C
  int64_t in_h, in_w, out_h, out_w;
};

// Parses the kernel/stride/padding/dilation lists (an empty stride means the kernel size; an
// empty `dilation` means 1), checks them and `input` as ATen's pool2d_shape_check does, and fills
// `geometry`; `op` names the op in messages. The output shape is input's with H, W replaced.
bool pool2d_geometry(KernelRuntimeContext& ctx, const char* op, const Tensor& input,
                     IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, bool ceil_mode, Pool2dGeometry* geometry);

// Output extent of one pooled dim (ATen's pooling_output_shape); stride must be nonzero.
int64_t pooling_output_size(int64_t in, int64_t kernel, int64_t pad, int64_t stride,
                            int64_t dilation, bool ceil_mode);

// `input` is [N,] C, H, W with nonzero C, H, W (N may be 0); fails naming `op` otherwise.
bool check_pool2d_input(KernelRuntimeContext& ctx, const Tensor& input);

// Resizes `out` to input's shape with the last two dims set to out_h, out_w.
bool resize_pool2d_out(KernelRuntimeContext& ctx, const Tensor& input, int64_t out_h, int64_t out_w,
                       Tensor& out);

}  // namespace kiln::portable
