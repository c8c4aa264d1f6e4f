// convolution_backward.out: the gradients of a 1-D or 2-D (transposed, grouped, strided, dilated)
// convolution with respect to its input (out0), weight (out1) and bias (out2), each computed
// when output_mask asks for it. Each gradient is a gemm whose operands the im2col loaders gather
// on the fly, as in the forward kernel; no temporary memory.
#include <optional>
#include <tuple>
#include <type_traits>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/convolution.h"
#include "kernels/portable/cpu/util/dtype_util.h"
#include "kernels/portable/cpu/util/gemm.h"
#include "kernels/portable/cpu/util/im2col.h"
#include "kernels/portable/cpu/util/matmul.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// The forward convolution's geometry over `source` (height x width), producing `out_width`
// columns.
ConvGeometry geometry_over(const ConvShape& c, ScalarType dtype, const char* source, int64_t height,
                           int64_t width, int64_t out_width) {
  return {source,
          dtype,
          dtype,
          height,
          width,
          out_width,
          c.kernel_h,
          c.kernel_w,
          {c.stride[0], c.stride[1]},
          {c.padding[0], c.padding[1]},
          {c.dilation[0], c.dilation[1]},
          nullptr,
          0};
}

// grad_input: for a convolution, the transposed convolution of grad_output by the weight; for a
// transposed one, the convolution of grad_output by the weight. One gemm per image and group:
// (group_in x group_out * taps) times (group_out * taps x H * W).
void input_gradient(const ConvShape& c, bool transposed, const Tensor& grad_output,
                    const Tensor& weight, Tensor& grad_input) {
  const ScalarType dtype = grad_input.scalar_type();
  const size_t size = element_size(dtype);
  const int64_t taps = c.kernel_h * c.kernel_w;
  const int64_t k = c.group_out * taps;
  const int64_t n = c.height * c.width;
  const int64_t out_plane = c.out_h * c.out_w;
  const char* grads = static_cast<const char*>(grad_output.const_data_ptr());
  const char* weights = static_cast<const char*>(weight.const_data_ptr());
  char* result = static_cast<char*>(grad_input.mutable_data_ptr());
  for (int64_t b = 0; b < c.batches; ++b) {
    for (int64_t g = 0; g < c.groups; ++g) {
      ConvGeometry geometry =
          geometry_over(c, dtype, grads + (b * c.out_channels + g * c.group_out) * out_plane * size,
                        c.out_h, c.out_w, c.width);
      GemmInput a = {weights + g * c.group_in * k * size, dtype, k, 1};
      GemmInput columns = {nullptr, dtype, 0, 0, load_im2col_row, &geometry};
      if (!transposed) {
        // A(ci, (co, kh, kw)) = weight[co][ci][kh][kw]: the forward's transposed-weight loader
        // with the roles of in and out swapped.
        geometry.weight = weights + g * c.group_out * c.group_in * taps * size;
        geometry.out_per_group = c.group_in;
        a = {nullptr, dtype, 0, 0, load_transposed_weight_row, &geometry};
        columns.loader = load_col2im_row;
      }
      gemm(c.group_in, n, k, a, columns,
           {result + (b * c.in_channels + g * c.group_in) * n * size, dtype, n});
    }
  }
}

// grad_weight: per group, the sum over images and positions of grad_output times the input's
// columns, as one gemm whose inner dimension runs over the whole batch. A convolution's is
// (group_out x B * out positions) times (B * out positions x group_in * taps); a transposed one
// swaps the roles of input and grad_output.
void weight_gradient(const ConvShape& c, bool transposed, const Tensor& grad_output,
                     const Tensor& input, Tensor& grad_weight) {
  const ScalarType dtype = grad_weight.scalar_type();
  const size_t size = element_size(dtype);
  const int64_t taps = c.kernel_h * c.kernel_w;
  const int64_t in_plane = c.height * c.width;
  const int64_t out_plane = c.out_h * c.out_w;
  const char* grads = static_cast<const char*>(grad_output.const_data_ptr());
  const char* inputs = static_cast<const char*>(input.const_data_ptr());
  char* result = static_cast<char*>(grad_weight.mutable_data_ptr());
  for (int64_t g = 0; g < c.groups; ++g) {
    const char* grad_group = grads + g * c.group_out * out_plane * size;
    const char* input_group = inputs + g * c.group_in * in_plane * size;
    // Rows: grad_output's channels (the input's, transposed); columns: the other's taps.
    const int64_t m = transposed ? c.group_in : c.group_out;
    const int64_t n = (transposed ? c.group_out : c.group_in) * taps;
    const BatchedRows rows =
        transposed ? BatchedRows{input_group, dtype, dtype, c.in_channels * in_plane, in_plane}
                   : BatchedRows{grad_group, dtype, dtype, c.out_channels * out_plane, out_plane};
    const BatchedConvGeometry columns =
        transposed
            ? BatchedConvGeometry{geometry_over(c, dtype, grad_group, c.out_h, c.out_w, c.width),
                                  c.height, c.out_channels * out_plane}
            : BatchedConvGeometry{geometry_over(c, dtype, input_group, c.height, c.width, c.out_w),
                                  c.out_h, c.in_channels * in_plane};
    gemm(m, n, c.batches * rows.positions, {nullptr, dtype, 0, 0, load_batched_row, &rows},
         {nullptr, dtype, 0, 0, load_im2col_transposed_row, &columns},
         {result + g * m * n * size, dtype, n});
  }
}

// grad_bias[co] = the sum of grad_output's channel co, accumulated in the compute type.
template <typename T>
void bias_gradient(const ConvShape& c, const T* grads, T* result) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t plane = c.out_h * c.out_w;
  for (int64_t co = 0; co < c.out_channels; ++co) {
    C sum = 0;
    for (int64_t b = 0; b < c.batches; ++b) {
      const T* row = grads + (b * c.out_channels + co) * plane;
      for (int64_t i = 0; i < plane; ++i) sum += static_cast<C>(row[i]);
    }
    result[co] = static_cast<T>(sum);
  }
}

// `grad_output` has the shape the forward convolution's output has.
bool check_grad_output_shape(KernelRuntimeContext& ctx, const ConvShape& c,
                             const Tensor& grad_output) {
  SizesType sizes[4] = {c.batches, c.out_channels, c.out_h, c.out_w};
  if (c.spatial == 1) sizes[2] = c.out_w;
  const ArrayRef<SizesType> expected(sizes, static_cast<size_t>(c.spatial + 2));
  bool same = grad_output.dim() == static_cast<int64_t>(expected.size());
  for (size_t d = 0; same && d < expected.size(); ++d) {
    same = grad_output.size(static_cast<int64_t>(d)) == expected[d];
  }
  KILN_KERNEL_CHECK_MSG(ctx, same, InvalidArgument, false,
                        "Expected grad_output of size %s (the convolution's output for these "
                        "arguments), but got %s",
                        format_shape(expected).text, format_shape(grad_output.sizes()).text);
  return true;
}

}  // namespace

std::tuple<Tensor&, Tensor&, Tensor&> convolution_backward_out(
    KernelRuntimeContext& ctx, const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    std::optional<IntArrayRef> bias_sizes, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups,
    ArrayRef<bool> output_mask, Tensor& out0, Tensor& out1, Tensor& out2) {
  std::tuple<Tensor&, Tensor&, Tensor&> result(out0, out1, out2);
  // ATen sizes grad_bias by the output channels; bias_sizes only marks that there is a bias.
  (void)bias_sizes;
  KILN_KERNEL_CHECK_MSG(ctx, output_mask.size() == 3, InvalidArgument, result,
                        "output_mask must have 3 entries (grad_input, grad_weight, grad_bias), "
                        "but got %zu",
                        output_mask.size());
  Tensor* outs[3] = {&out0, &out1, &out2};
  static const char* const kOutNames[3] = {"out0", "out1", "out2"};
  if (!check_tensor(ctx, grad_output, "grad_output") || !check_tensor(ctx, input, "input") ||
      !check_tensor(ctx, weight, "weight")) {
    return result;
  }
  for (int i = 0; i < 3; ++i) {
    if (output_mask[i] && !check_tensor(ctx, *outs[i], kOutNames[i])) return result;
  }
  ConvShape c;
  if (!conv_geometry(ctx, input, weight, stride, padding, dilation, transposed, output_padding,
                     groups, &c)) {
    return result;
  }
  const ScalarType dtype = input.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, weight.scalar_type() == dtype && grad_output.scalar_type() == dtype,
                        InvalidArgument, result,
                        "expected grad_output, input and weight of one dtype, but got %s, %s and "
                        "%s",
                        to_string(grad_output.scalar_type()), to_string(dtype),
                        to_string(weight.scalar_type()));
  KILN_KERNEL_CHECK_MSG(
      ctx, is_floating_type(dtype), InvalidType, result, "\"%s\" not implemented for '%s'",
      transposed ? "slow_conv_transpose2d_backward_out_cpu" : "slow_conv2d_cpu_grad_input",
      to_string(dtype));
  if (!conv_output_size(ctx, transposed, &c) || !check_grad_output_shape(ctx, c, grad_output) ||
      !check_gemm_dtype(ctx, dtype, "convolution_backward")) {
    return result;
  }
  const SizesType bias_size[1] = {c.out_channels};
  const ArrayRef<SizesType> shapes[3] = {input.sizes(), weight.sizes(), {bias_size, 1}};
  for (int i = 0; i < 3; ++i) {
    if (output_mask[i] &&
        (!check_out_dtype_is(ctx, *outs[i], dtype) || !resize_or_fail(ctx, *outs[i], shapes[i]))) {
      return result;
    }
  }
  if (output_mask[0] && out0.numel() > 0) input_gradient(c, transposed, grad_output, weight, out0);
  if (output_mask[1] && out1.numel() > 0) weight_gradient(c, transposed, grad_output, input, out1);
  if (output_mask[2]) {
    dispatch_element_type(dtype, [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        bias_gradient(c, grad_output.const_data_ptr<T>(), out2.mutable_data_ptr<T>());
      }
    });
  }
  return result;
}

}  // namespace kiln::portable::native
