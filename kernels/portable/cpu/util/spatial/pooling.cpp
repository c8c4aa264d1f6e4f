// Argument parsing and output geometry shared by the 2-D pooling kernels.
#include "kernels/portable/cpu/util/spatial/pooling.h"

#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"

namespace kiln::portable {
namespace {

// Expands a 1- or 2-element list (or an empty one to `fallback`) into out[2].
bool pair_of(KernelRuntimeContext& ctx, IntArrayRef values, const int64_t* fallback, const char* op,
             const char* name, const char* rule, int64_t* out) {
  if (values.empty() && fallback != nullptr) {
    out[0] = fallback[0];
    out[1] = fallback[1];
    return true;
  }
  if (values.size() != 1 && values.size() != 2) {
    ctx.fail(Error::InvalidArgument, "%s: %s must %s, or a tuple of two ints", op, name, rule);
    return false;
  }
  out[0] = values[0];
  out[1] = values[values.size() - 1];
  return true;
}

}  // namespace

int64_t pooling_output_size(int64_t in, int64_t kernel, int64_t pad, int64_t stride,
                            int64_t dilation, bool ceil_mode) {
  const int64_t numerator =
      in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // Floor division (the numerator may be negative).
  int64_t out = numerator / stride;
  if ((numerator % stride != 0) && ((numerator < 0) != (stride < 0))) --out;
  ++out;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

bool check_pool2d_input(KernelRuntimeContext& ctx, const Tensor& input) {
  const int64_t dim = input.dim();
  bool ok = dim == 3 || dim == 4;
  for (int64_t d = dim - 3; ok && d < dim; ++d) ok = input.size(d) != 0;
  if (ok) return true;
  ctx.fail(Error::InvalidArgument,
           "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
           "got:%s",
           format_shape(input.sizes()).text);
  return false;
}

bool pool2d_geometry(KernelRuntimeContext& ctx, const char* op, const Tensor& input,
                     IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, bool ceil_mode, Pool2dGeometry* g) {
  static const int64_t kOnes[2] = {1, 1};
  if (!pair_of(ctx, kernel_size, nullptr, op, "kernel_size", "either be a single int", g->kernel) ||
      !pair_of(ctx, stride, g->kernel, op, "stride", "either be omitted, a single int",
               g->stride) ||
      !pair_of(ctx, padding, nullptr, op, "padding", "either be a single int", g->padding) ||
      !pair_of(ctx, dilation, kOnes, op, "dilation", "be either a single int", g->dilation)) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(ctx, g->stride[0] != 0 && g->stride[1] != 0, InvalidArgument, false,
                        "stride should not be zero");
  KILN_KERNEL_CHECK_MSG(ctx, g->kernel[0] > 0 && g->kernel[1] > 0, InvalidArgument, false,
                        "kernel size should be greater than zero, but got kH: %lld kW: %lld",
                        static_cast<long long>(g->kernel[0]), static_cast<long long>(g->kernel[1]));
  KILN_KERNEL_CHECK_MSG(ctx, g->stride[0] > 0 && g->stride[1] > 0, InvalidArgument, false,
                        "stride should be greater than zero, but got dH: %lld dW: %lld",
                        static_cast<long long>(g->stride[0]), static_cast<long long>(g->stride[1]));
  KILN_KERNEL_CHECK_MSG(ctx, g->dilation[0] > 0 && g->dilation[1] > 0, InvalidArgument, false,
                        "dilation should be greater than zero, but got dilationH: %lld dilationW: "
                        "%lld",
                        static_cast<long long>(g->dilation[0]),
                        static_cast<long long>(g->dilation[1]));
  if (!check_pool2d_input(ctx, input)) return false;
  // The output geometry is computed in int64_t; arguments and sizes below 2^31 keep every term
  // of it from overflowing (a program's arguments are not to be trusted).
  bool fits = input.size(-2) <= INT32_MAX && input.size(-1) <= INT32_MAX;
  for (int d = 0; d < 2; ++d) {
    fits = fits && g->kernel[d] <= INT32_MAX && g->stride[d] <= INT32_MAX &&
           g->padding[d] <= INT32_MAX && g->dilation[d] <= INT32_MAX;
  }
  KILN_KERNEL_CHECK_MSG(ctx, fits, NotSupported, false,
                        "%s: kernel_size, stride, padding, dilation and input sizes of 2^31 or "
                        "more are not supported",
                        op);
  for (int d = 0; d < 2; ++d) {
    KILN_KERNEL_CHECK_MSG(
        ctx, g->padding[d] >= 0 && g->padding[d] <= ((g->kernel[d] - 1) * g->dilation[d] + 1) / 2,
        InvalidArgument, false,
        "pad should be at most half of effective kernel size, but got pad=%lld, "
        "kernel_size=%lld and dilation=%lld",
        static_cast<long long>(g->padding[d]), static_cast<long long>(g->kernel[d]),
        static_cast<long long>(g->dilation[d]));
  }
  g->in_h = input.size(-2);
  g->in_w = input.size(-1);
  g->planes = input.numel() / (g->in_h * g->in_w);
  g->out_h = pooling_output_size(g->in_h, g->kernel[0], g->padding[0], g->stride[0], g->dilation[0],
                                 ceil_mode);
  g->out_w = pooling_output_size(g->in_w, g->kernel[1], g->padding[1], g->stride[1], g->dilation[1],
                                 ceil_mode);
  KILN_KERNEL_CHECK_MSG(ctx, g->kernel[1] / 2 >= g->padding[1] && g->kernel[0] / 2 >= g->padding[0],
                        InvalidArgument, false,
                        "pad should be smaller than or equal to half of kernel size, but got "
                        "padW = %lld, padH = %lld, kW = %lld, kH = %lld",
                        static_cast<long long>(g->padding[1]),
                        static_cast<long long>(g->padding[0]), static_cast<long long>(g->kernel[1]),
                        static_cast<long long>(g->kernel[0]));
  KILN_KERNEL_CHECK_MSG(ctx, g->out_h >= 1 && g->out_w >= 1, InvalidArgument, false,
                        "Given input size: (%lldx%lldx%lld). Calculated output size: "
                        "(%lldx%lldx%lld). Output size is too small",
                        static_cast<long long>(input.size(-3)), static_cast<long long>(g->in_h),
                        static_cast<long long>(g->in_w), static_cast<long long>(input.size(-3)),
                        static_cast<long long>(g->out_h), static_cast<long long>(g->out_w));
  return true;
}

bool resize_pool2d_out(KernelRuntimeContext& ctx, const Tensor& input, int64_t out_h, int64_t out_w,
                       Tensor& out) {
  SizesType sizes[4];
  const int64_t dim = input.dim();
  for (int64_t d = 0; d < dim - 2; ++d) sizes[d] = input.size(d);
  sizes[dim - 2] = out_h;
  sizes[dim - 1] = out_w;
  return resize_or_fail(ctx, out, {sizes, static_cast<size_t>(dim)});
}

}  // namespace kiln::portable
