// Argument checks and geometry shared by the convolution kernels.
#include "kernels/portable/cpu/util/conv/convolution.h"

#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"

namespace kiln::portable {
namespace {

// Expands a stride/padding/dilation list of 1 or `spatial` values into out[0..2) (height first;
// a 1-D convolution gets the neutral `fill` for height).
bool expand_param(KernelRuntimeContext& ctx, IntArrayRef values, const char* name, int64_t spatial,
                  int64_t fill, int64_t* out) {
  if (values.size() != 1 && static_cast<int64_t>(values.size()) != spatial) {
    ctx.fail(Error::InvalidArgument,
             "expected %s to be a single integer value or a list of %lld values to match the "
             "convolution dimensions, but got %s=%s",
             name, static_cast<long long>(spatial), name, format_shape(values).text);
    return false;
  }
  for (int64_t d = 0; d < spatial; ++d) {
    out[2 - spatial + d] = values[values.size() == 1 ? 0 : static_cast<size_t>(d)];
  }
  if (spatial == 1) out[0] = fill;
  return true;
}

}  // namespace

bool conv_geometry(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                   IntArrayRef output_padding, int64_t groups, ConvShape* c) {
  KILN_KERNEL_CHECK_MSG(ctx, weight.dim() >= 3, InvalidArgument, false,
                        "weight should have at least three dimensions");
  KILN_KERNEL_CHECK_MSG(ctx, weight.dim() <= 4, NotSupported, false,
                        "the portable convolution supports 1-D and 2-D convolutions; got a "
                        "%lld-D weight",
                        static_cast<long long>(weight.dim()));
  const int64_t spatial = weight.dim() - 2;
  c->spatial = spatial;
  if (!expand_param(ctx, stride, "stride", spatial, 1, c->stride) ||
      !expand_param(ctx, padding, "padding", spatial, 0, c->padding) ||
      !expand_param(ctx, dilation, "dilation", spatial, 1, c->dilation) ||
      !expand_param(ctx, output_padding, "output_padding", spatial, 0, c->output_padding)) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(ctx, c->stride[0] > 0 && c->stride[1] > 0, InvalidArgument, false,
                        "non-positive stride is not supported");
  KILN_KERNEL_CHECK_MSG(ctx, c->padding[0] >= 0 && c->padding[1] >= 0, InvalidArgument, false,
                        "negative padding is not supported");
  KILN_KERNEL_CHECK_MSG(ctx, c->dilation[0] > 0 && c->dilation[1] > 0, InvalidArgument, false,
                        "dilation should be greater than zero, but got %s",
                        format_shape(dilation).text);
  KILN_KERNEL_CHECK_MSG(ctx, groups > 0, InvalidArgument, false,
                        "non-positive groups is not supported");
  // The output geometry is computed in int64_t; arguments and sizes below 2^31 keep every term
  // of it from overflowing (a program's arguments are not to be trusted).
  bool fits = true;
  for (int i = 0; i < 2; ++i) {
    fits = fits && c->stride[i] <= INT32_MAX && c->padding[i] <= INT32_MAX &&
           c->dilation[i] <= INT32_MAX && c->output_padding[i] <= INT32_MAX &&
           c->output_padding[i] >= -INT32_MAX;
  }
  for (int64_t dim = 2; dim < weight.dim(); ++dim) {
    fits = fits && weight.size(dim) <= INT32_MAX &&
           (input.dim() != weight.dim() || input.size(dim) <= INT32_MAX);
  }
  KILN_KERNEL_CHECK_MSG(ctx, fits, NotSupported, false,
                        "stride, padding, dilation, output_padding and spatial sizes of 2^31 or "
                        "more are not supported (stride %s, padding %s, dilation %s)",
                        format_shape(stride).text, format_shape(padding).text,
                        format_shape(dilation).text);
  KILN_KERNEL_CHECK_MSG(ctx, input.dim() == weight.dim(), InvalidArgument, false,
                        "Expected %lld-dimensional input for %lld-dimensional weight %s, but got "
                        "%lld-dimensional input of size %s instead",
                        static_cast<long long>(weight.dim()), static_cast<long long>(weight.dim()),
                        format_shape(weight.sizes()).text, static_cast<long long>(input.dim()),
                        format_shape(input.sizes()).text);
  c->batches = input.size(0);
  c->in_channels = input.size(1);
  c->height = spatial == 2 ? input.size(2) : 1;
  c->width = input.size(-1);
  c->kernel_h = spatial == 2 ? weight.size(2) : 1;
  c->kernel_w = weight.size(-1);
  c->groups = groups;
  c->out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  KILN_KERNEL_CHECK_MSG(
      ctx, weight.size(0) >= groups && weight.size(0) % groups == 0, InvalidArgument, false,
      "Given groups=%lld, expected weight to be %s %lld at dimension 0, but got "
      "weight of size %s instead",
      static_cast<long long>(groups), weight.size(0) == 0 ? "at least" : "divisible by",
      static_cast<long long>(weight.size(0) == 0 ? 1 : groups), format_shape(weight.sizes()).text);
  c->group_in = transposed ? weight.size(0) / groups : weight.size(1);
  c->group_out = c->out_channels / groups;
  KILN_KERNEL_CHECK_MSG(
      ctx, c->in_channels == c->group_in * groups, InvalidArgument, false,
      "Given %s=%lld, weight of size %s, expected input%s to have %lld channels, "
      "but got %lld channels instead",
      transposed ? "transposed" : "groups", static_cast<long long>(transposed ? 1 : groups),
      format_shape(weight.sizes()).text, format_shape(input.sizes()).text,
      static_cast<long long>(c->group_in * groups), static_cast<long long>(c->in_channels));
  return true;
}

bool conv_output_size(KernelRuntimeContext& ctx, bool transposed, ConvShape* c) {
  const int64_t spatial = c->spatial;
  const int64_t* s = c->stride;
  const int64_t* p = c->padding;
  const int64_t* d = c->dilation;
  const int64_t* op = c->output_padding;
  if (transposed) {
    KILN_KERNEL_CHECK_MSG(
        ctx, (op[0] < s[0] || op[0] < d[0]) && (op[1] < s[1] || op[1] < d[1]), InvalidArgument,
        false,
        "output padding must be smaller than either stride or dilation, but got output_padding "
        "%s with stride %s and dilation %s",
        format_shape({op + 2 - spatial, static_cast<size_t>(spatial)}).text,
        format_shape({s + 2 - spatial, static_cast<size_t>(spatial)}).text,
        format_shape({d + 2 - spatial, static_cast<size_t>(spatial)}).text);
    c->out_h = (c->height - 1) * s[0] - 2 * p[0] + d[0] * (c->kernel_h - 1) + op[0] + 1;
    c->out_w = (c->width - 1) * s[1] - 2 * p[1] + d[1] * (c->kernel_w - 1) + op[1] + 1;
    KILN_KERNEL_CHECK_MSG(ctx, c->out_h > 0 && c->out_w > 0, InvalidArgument, false,
                          "Given input size per channel: (%lld x %lld). Calculated output size "
                          "per channel: (%lld x %lld). Output size is too small",
                          static_cast<long long>(c->height), static_cast<long long>(c->width),
                          static_cast<long long>(c->out_h), static_cast<long long>(c->out_w));
    return true;
  }
  const int64_t span_h = d[0] * (c->kernel_h - 1) + 1;
  const int64_t span_w = d[1] * (c->kernel_w - 1) + 1;
  KILN_KERNEL_CHECK_MSG(
      ctx, c->height + 2 * p[0] >= span_h && c->width + 2 * p[1] >= span_w, InvalidArgument, false,
      "Calculated padded input size per channel: (%lld x %lld). Kernel size: "
      "(%lld x %lld). Kernel size can't be greater than actual input size",
      static_cast<long long>(c->height + 2 * p[0]), static_cast<long long>(c->width + 2 * p[1]),
      static_cast<long long>(span_h), static_cast<long long>(span_w));
  c->out_h = (c->height + 2 * p[0] - span_h) / s[0] + 1;
  c->out_w = (c->width + 2 * p[1] - span_w) / s[1] + 1;
  return true;
}

}  // namespace kiln::portable
