// convolution.out: 1-D and 2-D (transposed) convolution as a gemm over im2col rows packed on the
// fly.
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/dtype_util.h"
#include "kernels/portable/cpu/util/gemm.h"
#include "kernels/portable/cpu/util/im2col.h"
#include "kernels/portable/cpu/util/matmul.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
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

Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                        IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                        int64_t groups, Tensor& out) {
  if (!check_tensor(ctx, input, "input") || !check_tensor(ctx, weight, "weight") ||
      !check_tensor(ctx, out, "out") || (bias.has_value() && !check_tensor(ctx, *bias, "bias"))) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, weight.dim() >= 3, InvalidArgument, out,
                        "weight should have at least three dimensions");
  KILN_KERNEL_CHECK_MSG(ctx, weight.dim() <= 4, NotSupported, out,
                        "the portable convolution supports 1-D and 2-D convolutions; got a "
                        "%lld-D weight",
                        static_cast<long long>(weight.dim()));
  const int64_t spatial = weight.dim() - 2;
  int64_t s[2], p[2], d[2], op[2];
  if (!expand_param(ctx, stride, "stride", spatial, 1, s) ||
      !expand_param(ctx, padding, "padding", spatial, 0, p) ||
      !expand_param(ctx, dilation, "dilation", spatial, 1, d) ||
      !expand_param(ctx, output_padding, "output_padding", spatial, 0, op)) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, s[0] > 0 && s[1] > 0, InvalidArgument, out,
                        "non-positive stride is not supported");
  KILN_KERNEL_CHECK_MSG(ctx, p[0] >= 0 && p[1] >= 0, InvalidArgument, out,
                        "negative padding is not supported");
  KILN_KERNEL_CHECK_MSG(ctx, d[0] > 0 && d[1] > 0, InvalidArgument, out,
                        "dilation should be greater than zero, but got %s",
                        format_shape(dilation).text);
  KILN_KERNEL_CHECK_MSG(ctx, groups > 0, InvalidArgument, out,
                        "non-positive groups is not supported");
  // The output geometry is computed in int64_t; arguments and sizes below 2^31 keep every term
  // of it from overflowing (a program's arguments are not to be trusted).
  bool fits = true;
  for (int i = 0; i < 2; ++i) {
    fits = fits && s[i] <= INT32_MAX && p[i] <= INT32_MAX && d[i] <= INT32_MAX &&
           op[i] <= INT32_MAX && op[i] >= -INT32_MAX;
  }
  for (int64_t dim = 2; dim < weight.dim(); ++dim) {
    fits = fits && weight.size(dim) <= INT32_MAX &&
           (input.dim() != weight.dim() || input.size(dim) <= INT32_MAX);
  }
  KILN_KERNEL_CHECK_MSG(ctx, fits, NotSupported, out,
                        "stride, padding, dilation, output_padding and spatial sizes of 2^31 or "
                        "more are not supported (stride %s, padding %s, dilation %s)",
                        format_shape(stride).text, format_shape(padding).text,
                        format_shape(dilation).text);
  KILN_KERNEL_CHECK_MSG(ctx, input.dim() == weight.dim(), InvalidArgument, out,
                        "Expected %lld-dimensional input for %lld-dimensional weight %s, but got "
                        "%lld-dimensional input of size %s instead",
                        static_cast<long long>(weight.dim()), static_cast<long long>(weight.dim()),
                        format_shape(weight.sizes()).text, static_cast<long long>(input.dim()),
                        format_shape(input.sizes()).text);
  const int64_t batches = input.size(0);
  const int64_t in_channels = input.size(1);
  const int64_t height = spatial == 2 ? input.size(2) : 1;
  const int64_t width = input.size(-1);
  const int64_t kernel_h = spatial == 2 ? weight.size(2) : 1;
  const int64_t kernel_w = weight.size(-1);
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  KILN_KERNEL_CHECK_MSG(
      ctx, weight.size(0) >= groups && weight.size(0) % groups == 0, InvalidArgument, out,
      "Given groups=%lld, expected weight to be %s %lld at dimension 0, but got "
      "weight of size %s instead",
      static_cast<long long>(groups), weight.size(0) == 0 ? "at least" : "divisible by",
      static_cast<long long>(weight.size(0) == 0 ? 1 : groups), format_shape(weight.sizes()).text);
  const int64_t group_in = transposed ? weight.size(0) / groups : weight.size(1);
  KILN_KERNEL_CHECK_MSG(
      ctx, in_channels == group_in * groups, InvalidArgument, out,
      "Given %s=%lld, weight of size %s, expected input%s to have %lld channels, "
      "but got %lld channels instead",
      transposed ? "transposed" : "groups", static_cast<long long>(transposed ? 1 : groups),
      format_shape(weight.sizes()).text, format_shape(input.sizes()).text,
      static_cast<long long>(group_in * groups), static_cast<long long>(in_channels));
  KILN_KERNEL_CHECK_MSG(
      ctx, !bias.has_value() || (bias->dim() == 1 && bias->size(0) == out_channels),
      InvalidArgument, out,
      "Given weight of size %s, expected bias to be 1-dimensional with %lld elements, but got "
      "bias of size %s instead",
      format_shape(weight.sizes()).text, static_cast<long long>(out_channels),
      bias.has_value() ? format_shape(bias->sizes()).text : "[]");
  const ScalarType dtype = input.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, weight.scalar_type() == dtype, InvalidArgument, out,
                        "expected scalar type %s but found %s", to_string(dtype),
                        to_string(weight.scalar_type()));
  if (!check_not_bool(ctx, dtype,
                      transposed ? "slow_conv_transpose2d_out_cpu" : "slow_conv2d_cpu")) {
    return out;
  }
  // ATen's dilated and transposed CPU paths exist for Long and the floats only (an empty batch
  // returns before reaching them).
  const bool dilated = d[0] > 1 || d[1] > 1;
  KILN_KERNEL_CHECK_MSG(ctx,
                        batches == 0 || !(transposed || dilated) || is_floating_type(dtype) ||
                            dtype == ScalarType::Long,
                        InvalidType, out, "\"%s\" not implemented for '%s'",
                        transposed ? "slow_conv_transpose2d_out_cpu" : "slow_conv_dilated<>",
                        to_string(dtype));
  int64_t out_h, out_w;
  if (transposed) {
    KILN_KERNEL_CHECK_MSG(
        ctx, (op[0] < s[0] || op[0] < d[0]) && (op[1] < s[1] || op[1] < d[1]), InvalidArgument, out,
        "output padding must be smaller than either stride or dilation, but got output_padding "
        "%s with stride %s and dilation %s",
        format_shape({op + 2 - spatial, static_cast<size_t>(spatial)}).text,
        format_shape({s + 2 - spatial, static_cast<size_t>(spatial)}).text,
        format_shape({d + 2 - spatial, static_cast<size_t>(spatial)}).text);
    out_h = (height - 1) * s[0] - 2 * p[0] + d[0] * (kernel_h - 1) + op[0] + 1;
    out_w = (width - 1) * s[1] - 2 * p[1] + d[1] * (kernel_w - 1) + op[1] + 1;
    KILN_KERNEL_CHECK_MSG(ctx, out_h > 0 && out_w > 0, InvalidArgument, out,
                          "Given input size per channel: (%lld x %lld). Calculated output size "
                          "per channel: (%lld x %lld). Output size is too small",
                          static_cast<long long>(height), static_cast<long long>(width),
                          static_cast<long long>(out_h), static_cast<long long>(out_w));
  } else {
    const int64_t span_h = d[0] * (kernel_h - 1) + 1;
    const int64_t span_w = d[1] * (kernel_w - 1) + 1;
    KILN_KERNEL_CHECK_MSG(
        ctx, height + 2 * p[0] >= span_h && width + 2 * p[1] >= span_w, InvalidArgument, out,
        "Calculated padded input size per channel: (%lld x %lld). Kernel size: "
        "(%lld x %lld). Kernel size can't be greater than actual input size",
        static_cast<long long>(height + 2 * p[0]), static_cast<long long>(width + 2 * p[1]),
        static_cast<long long>(span_h), static_cast<long long>(span_w));
    out_h = (height + 2 * p[0] - span_h) / s[0] + 1;
    out_w = (width + 2 * p[1] - span_w) / s[1] + 1;
  }
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  if (!check_gemm_dtype(ctx, dtype, "convolution")) return out;
  SizesType sizes[4] = {batches, out_channels, out_h, out_w};
  if (spatial == 1) sizes[2] = out_w;
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(spatial + 2)})) return out;
  if (out.numel() == 0) return out;

  const int64_t group_out = out_channels / groups;
  const int64_t taps = kernel_h * kernel_w;
  const int64_t k = group_in * taps;
  const int64_t n = out_h * out_w;
  const size_t size = element_size(dtype);
  ConvGeometry geometry = {nullptr,      dtype,    dtype,    height,       width,
                           out_w,        kernel_h, kernel_w, {s[0], s[1]}, {p[0], p[1]},
                           {d[0], d[1]}, nullptr,  group_out};
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t g = 0; g < groups; ++g) {
      geometry.input = static_cast<const char*>(input.const_data_ptr()) +
                       (b * in_channels + g * group_in) * height * width * size;
      GemmInput a = {static_cast<const char*>(weight.const_data_ptr()) + g * group_out * k * size,
                     dtype, k, 1};
      if (transposed) {
        geometry.weight = static_cast<const char*>(weight.const_data_ptr()) +
                          g * group_in * group_out * taps * size;
        a.loader = load_transposed_weight_row;
        a.user = &geometry;
      }
      const GemmInput im2col = {
          nullptr, dtype, 0, 0, transposed ? load_col2im_row : load_im2col_row, &geometry};
      GemmEpilogue epilogue;
      if (bias.has_value()) {
        epilogue.beta = Scalar(int64_t{1});
        epilogue.c = {static_cast<const char*>(bias->const_data_ptr()) +
                          g * group_out * element_size(bias->scalar_type()),
                      bias->scalar_type(), 1, 0};
      }
      gemm(group_out, n, k, a, im2col,
           {static_cast<char*>(out.mutable_data_ptr()) +
                (b * out_channels + g * group_out) * n * size,
            dtype, n},
           epilogue);
    }
  }
  return out;
}

}  // namespace kiln::portable::native
