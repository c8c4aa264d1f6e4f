// convolution_backward.out: the gradients of a 1-D or 2-D (transposed, grouped, strided, dilated)
// convolution with respect to its input (out0), weight (out1) and bias (out2), each computed
// when output_mask asks for it. The gradients are gemms whose gathered operands the im2col
// loaders produce on the fly, as in the forward kernel, with results in stack scratch blocks; no
// temporary memory.
#include <optional>
#include <tuple>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/conv/convolution.h"
#include "kernels/portable/cpu/util/conv/im2col.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"
#include "kernels/portable/cpu/util/linalg/matmul.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// The forward convolution's geometry over `source` (height x width), producing `out_width`
// columns; the loaders write `compute`'s compute type.
ConvGeometry geometry_over(const ConvShape& c, ScalarType dtype, ScalarType compute,
                           const char* source, int64_t height, int64_t width, int64_t out_width) {
  return {source,
          dtype,
          compute,
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

// Stack scratch for gemm results, in elements of the compute type (32 KiB of float).
constexpr int64_t kScratch = 8192;

// The compute type's dtype (the gemms below write their results in it).
ScalarType compute_dtype(ScalarType dtype) {
  return dtype == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
}

// dst[i * s] += src[i] for i < n, in T's arithmetic (each sum rounded to T).
template <typename T, typename C>
void add_strided(const C* src, int64_t n, int64_t s, T* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i * s] = static_cast<T>(static_cast<C>(dst[i * s]) + src[i]);
}

// col2im: adds the column block cols (rows first_row.., one (c, kh, kw) each; columns
// first_position.. of the output positions) into the image `image` (group_in x H x W), each value
// to the input element the forward convolution read it from.
template <typename T, typename C>
void add_columns(const ConvShape& c, const C* cols, int64_t rows, int64_t first_row,
                 int64_t positions, int64_t first_position, T* image) {
  const int64_t s = c.stride[1];
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t row = first_row + r;
    const int64_t kw = row % c.kernel_w;
    const int64_t kh = row / c.kernel_w % c.kernel_h;
    T* plane = image + row / (c.kernel_w * c.kernel_h) * c.height * c.width;
    const C* src = cols + r * positions;
    const int64_t base = kw * c.dilation[1] - c.padding[1];  // iw = ow * s + base
    int64_t oh = first_position / c.out_w;
    int64_t ow = first_position % c.out_w;
    for (int64_t done = 0; done < positions;) {
      const int64_t run = positions - done < c.out_w - ow ? positions - done : c.out_w - ow;
      const int64_t ih = oh * c.stride[0] - c.padding[0] + kh * c.dilation[0];
      if (ih >= 0 && ih < c.height) {
        int64_t first = ow;
        while (first < ow + run && first * s + base < 0) ++first;
        int64_t last = ow + run;
        while (last > first && (last - 1) * s + base >= c.width) --last;
        if (last > first) {
          add_strided(src + done + (first - ow), last - first, s,
                      plane + ih * c.width + first * s + base);
        }
      }
      done += run;
      ow = 0;
      ++oh;
    }
  }
}

// grad_input of a convolution, as ATen computes it: per image and group, the columns
// weight^T (group_in * taps x group_out) times grad_output (group_out x positions), a block at a
// time in stack scratch, each block added back into the image (col2im).
template <typename T>
void convolution_input_gradient(const KernelRuntimeContext& ctx, const ConvShape& c,
                                const Tensor& grad_output, const Tensor& weight,
                                Tensor& grad_input) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const ScalarType dtype = grad_input.scalar_type();
  const size_t size = element_size(dtype);
  const int64_t rows = c.group_in * c.kernel_h * c.kernel_w;
  const int64_t positions = c.out_h * c.out_w;
  const int64_t row_block = rows < 256 ? rows : 256;
  const int64_t position_block =
      kScratch / row_block < positions ? kScratch / row_block : positions;
  alignas(64) C cols[kScratch];
  const char* grads = static_cast<const char*>(grad_output.const_data_ptr());
  const char* weights = static_cast<const char*>(weight.const_data_ptr());
  T* result = grad_input.mutable_data_ptr<T>();
  for (int64_t i = 0; i < grad_input.numel(); ++i) result[i] = T(0);
  for (int64_t b = 0; b < c.batches; ++b) {
    for (int64_t g = 0; g < c.groups; ++g) {
      T* image = result + (b * c.in_channels + g * c.group_in) * c.height * c.width;
      const char* grad = grads + (b * c.out_channels + g * c.group_out) * positions * size;
      for (int64_t r0 = 0; r0 < rows; r0 += row_block) {
        const int64_t m = rows - r0 < row_block ? rows - r0 : row_block;
        // A(r, co) = weight[g * group_out + co][r0 + r]: the group's weight, transposed.
        const GemmInput a = {weights + (g * c.group_out * rows + r0) * size, dtype, 1, rows};
        for (int64_t p0 = 0; p0 < positions; p0 += position_block) {
          const int64_t n = positions - p0 < position_block ? positions - p0 : position_block;
          gemm(ctx, m, n, c.group_out, a, {grad + p0 * size, dtype, positions, 1},
               {cols, compute_dtype(dtype), n});
          add_columns(c, cols, m, r0, n, p0, image);
        }
      }
    }
  }
}

// grad_input of a transposed convolution: the convolution of grad_output by the weight, one gemm
// per image and group, (group_in x group_out * taps) times im2col (group_out * taps x H * W).
void transposed_input_gradient(const KernelRuntimeContext& ctx, const ConvShape& c,
                               const Tensor& grad_output, const Tensor& weight,
                               Tensor& grad_input) {
  const ScalarType dtype = grad_input.scalar_type();
  const size_t size = element_size(dtype);
  const int64_t k = c.group_out * c.kernel_h * c.kernel_w;
  const int64_t n = c.height * c.width;
  const int64_t out_plane = c.out_h * c.out_w;
  const char* grads = static_cast<const char*>(grad_output.const_data_ptr());
  const char* weights = static_cast<const char*>(weight.const_data_ptr());
  char* result = static_cast<char*>(grad_input.mutable_data_ptr());
  for (int64_t b = 0; b < c.batches; ++b) {
    for (int64_t g = 0; g < c.groups; ++g) {
      const ConvGeometry geometry = geometry_over(
          c, dtype, dtype, grads + (b * c.out_channels + g * c.group_out) * out_plane * size,
          c.out_h, c.out_w, c.width);
      gemm(ctx, c.group_in, n, k, {weights + g * c.group_in * k * size, dtype, k, 1},
           {nullptr, dtype, 0, 0, load_im2col_row, &geometry},
           {result + (b * c.in_channels + g * c.group_in) * n * size, dtype, n});
    }
  }
}

// grad_weight, per group, with the inner dimension over the whole batch: the transposed gradient
// columns (taps * channels x B * positions) times the other tensor's channels (B * positions x
// channels), a block of rows at a time in stack scratch, stored transposed and rounded once. For
// a convolution the columns are im2col of the input and the other tensor is grad_output; for a
// transposed one, im2col of grad_output and the input.
template <typename T>
void weight_gradient(const KernelRuntimeContext& ctx, const ConvShape& c, bool transposed,
                     const Tensor& grad_output, const Tensor& input, Tensor& grad_weight) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const ScalarType dtype = grad_weight.scalar_type();
  const size_t size = element_size(dtype);
  const int64_t taps = c.kernel_h * c.kernel_w;
  const int64_t in_plane = c.height * c.width;
  const int64_t out_plane = c.out_h * c.out_w;
  const char* grads = static_cast<const char*>(grad_output.const_data_ptr());
  const char* inputs = static_cast<const char*>(input.const_data_ptr());
  const int64_t rows = (transposed ? c.group_out : c.group_in) * taps;
  const int64_t channels = transposed ? c.group_in : c.group_out;
  const int64_t positions = transposed ? in_plane : out_plane;
  const int64_t channel_block = channels < kScratch ? channels : kScratch;
  const int64_t row_block = kScratch / channel_block < rows ? kScratch / channel_block : rows;
  alignas(64) C block[kScratch];
  T* result = grad_weight.mutable_data_ptr<T>();
  for (int64_t g = 0; g < c.groups; ++g) {
    const char* grad_group = grads + g * c.group_out * out_plane * size;
    const char* input_group = inputs + g * c.group_in * in_plane * size;
    BatchedConvGeometry columns = {
        transposed
            ? geometry_over(c, dtype, compute_dtype(dtype), grad_group, c.out_h, c.out_w, c.width)
            : geometry_over(c, dtype, compute_dtype(dtype), input_group, c.height, c.width,
                            c.out_w),
        positions, (transposed ? c.out_channels * out_plane : c.in_channels * in_plane), 0};
    BatchedColumns other = {transposed ? input_group : grad_group,
                            dtype,
                            compute_dtype(dtype),
                            transposed ? c.in_channels * in_plane : c.out_channels * out_plane,
                            positions,
                            0};
    T* group_result = result + g * channels * rows;
    for (int64_t r0 = 0; r0 < rows; r0 += row_block) {
      const int64_t m = rows - r0 < row_block ? rows - r0 : row_block;
      columns.first_row = r0;
      for (int64_t c0 = 0; c0 < channels; c0 += channel_block) {
        const int64_t n = channels - c0 < channel_block ? channels - c0 : channel_block;
        other.first_column = c0;
        gemm(ctx, m, n, c.batches * positions,
             {nullptr, dtype, 0, 0, load_batched_im2col_row, &columns},
             {nullptr, dtype, 0, 0, load_batched_columns_row, &other},
             {block, compute_dtype(dtype), n});
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            group_result[(c0 + j) * rows + r0 + i] = static_cast<T>(block[i * n + j]);
          }
        }
      }
    }
  }
}

// grad_bias[co] = the sum of grad_output's channel co, accumulated in the compute type over
// eight lanes (so the loop vectorises).
template <typename T>
void bias_gradient(const ConvShape& c, const T* grads, T* result) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t plane = c.out_h * c.out_w;
  for (int64_t co = 0; co < c.out_channels; ++co) {
    C lanes[8] = {};
    C sum = 0;
    for (int64_t b = 0; b < c.batches; ++b) {
      const T* row = grads + (b * c.out_channels + co) * plane;
      int64_t i = 0;
      for (; i + 8 <= plane; i += 8) {
        KILN_UNROLL
        for (int j = 0; j < 8; ++j) lanes[j] += static_cast<C>(row[i + j]);
      }
      for (; i < plane; ++i) sum += static_cast<C>(row[i]);
    }
    KILN_UNROLL
    for (int j = 0; j < 8; ++j) sum += lanes[j];
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
  if (output_mask[0] && out0.numel() > 0 && transposed) {
    transposed_input_gradient(ctx, c, grad_output, weight, out0);
  }
  dispatch_element_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      if (output_mask[0] && out0.numel() > 0 && !transposed) {
        convolution_input_gradient<T>(ctx, c, grad_output, weight, out0);
      }
      if (output_mask[1] && out1.numel() > 0) {
        weight_gradient<T>(ctx, c, transposed, grad_output, input, out1);
      }
      if (output_mask[2]) {
        bias_gradient(c, grad_output.const_data_ptr<T>(), out2.mutable_data_ptr<T>());
      }
    }
  });
  return result;
}

}  // namespace kiln::portable::native
