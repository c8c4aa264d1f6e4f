// convolution.out: 1-D and 2-D (transposed) convolution as a gemm over im2col rows packed on the
// fly; a 1x1 convolution reads its input as the gemm's matrix, and a depthwise one runs directly.
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/conv/convolution.h"
#include "kernels/portable/cpu/util/conv/depthwise.h"
#include "kernels/portable/cpu/util/conv/im2col.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"
#include "kernels/portable/cpu/util/linalg/matmul.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                        IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                        int64_t groups, Tensor& out) {
  if (!check_tensor(ctx, input, "input") || !check_tensor(ctx, weight, "weight") ||
      !check_tensor(ctx, out, "out") || (bias.has_value() && !check_tensor(ctx, *bias, "bias"))) {
    return out;
  }
  ConvShape c;
  if (!conv_geometry(ctx, input, weight, stride, padding, dilation, transposed, output_padding,
                     groups, &c)) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(
      ctx, !bias.has_value() || (bias->dim() == 1 && bias->size(0) == c.out_channels),
      InvalidArgument, out,
      "Given weight of size %s, expected bias to be 1-dimensional with %lld elements, but got "
      "bias of size %s instead",
      format_shape(weight.sizes()).text, static_cast<long long>(c.out_channels),
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
  const bool dilated = c.dilation[0] > 1 || c.dilation[1] > 1;
  KILN_KERNEL_CHECK_MSG(ctx,
                        c.batches == 0 || !(transposed || dilated) || is_floating_type(dtype) ||
                            dtype == ScalarType::Long,
                        InvalidType, out, "\"%s\" not implemented for '%s'",
                        transposed ? "slow_conv_transpose2d_out_cpu" : "slow_conv_dilated<>",
                        to_string(dtype));
  if (!conv_output_size(ctx, transposed, &c)) return out;
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  if (!check_gemm_dtype(ctx, dtype, "convolution")) return out;
  SizesType sizes[4] = {c.batches, c.out_channels, c.out_h, c.out_w};
  if (c.spatial == 1) sizes[2] = c.out_w;
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(c.spatial + 2)})) return out;
  if (out.numel() == 0) return out;
  // A fused activation (KernelRuntimeContext::take_output_clamp) clamps results as they are
  // stored.
  const KernelRuntimeContext::OutputClamp* clamp = ctx.take_output_clamp(out.scalar_type());
  if (!transposed && depthwise_applies(c, dtype, bias)) {
    depthwise_convolution(ctx, c, input, weight, bias, clamp, out);
    return out;
  }

  const int64_t batches = c.batches, in_channels = c.in_channels, out_channels = c.out_channels;
  const int64_t height = c.height, width = c.width;
  const int64_t group_in = c.group_in, group_out = c.group_out;
  const int64_t taps = c.kernel_h * c.kernel_w;
  const int64_t k = group_in * taps;
  const int64_t n = c.out_h * c.out_w;
  const size_t size = element_size(dtype);
  ConvGeometry geometry = {nullptr,
                           dtype,
                           dtype,
                           height,
                           width,
                           c.out_w,
                           c.kernel_h,
                           c.kernel_w,
                           {c.stride[0], c.stride[1]},
                           {c.padding[0], c.padding[1]},
                           {c.dilation[0], c.dilation[1]},
                           nullptr,
                           group_out};
  // A 1x1 kernel at stride 1 without padding reads every input element once, in place: the
  // column matrix is the input itself.
  const bool pointwise = !transposed && taps == 1 && c.stride[0] == 1 && c.stride[1] == 1 &&
                         c.padding[0] == 0 && c.padding[1] == 0;
  // Float and Double images are read through their padded copy (or in place, unpadded) when the
  // context has temporary memory for it: im2col's rows are then plain copies, where building
  // them with every bound checked cost as much as the products on few output channels. An
  // absurd padding (a padded plane far larger than the image) keeps the checked rows.
  PaddedImage image = {
      nullptr, dtype, nullptr, width + 2 * c.padding[1], c.out_w, {c.stride[0], c.stride[1]}};
  // Groups too small for their product to be split over the threads (regnet's, of 8 or 16
  // channels) run side by side instead, each product on one thread.
  const int64_t group_work = group_out * n * (k > 0 ? k : 1);
  const bool groups_in_parallel =
      c.groups > 1 && ctx.thread_pool() != nullptr && group_work < 4 * kGemmGrain;
  const int64_t slices = groups_in_parallel ? c.groups : 1;  // padded copies at once
  char* planes = nullptr;
  const bool padded = c.padding[0] > 0 || c.padding[1] > 0;
  const int64_t plane_elements = padded_elements(geometry, group_in);
  if (!transposed && !pointwise && padded_image_applies(dtype) &&
      plane_elements <= 4 * group_in * height * width + (int64_t{1} << 16)) {
    auto* offsets = static_cast<int64_t*>(ctx.try_allocate_temp(k * sizeof(int64_t), 64));
    if (padded && offsets != nullptr) {
      planes = static_cast<char*>(
          ctx.try_allocate_temp(static_cast<size_t>(plane_elements * slices) * size, 64));
      if (planes == nullptr) offsets = nullptr;
    }
    if (offsets != nullptr) fill_row_offsets(geometry, group_in, offsets);
    image.row_offsets = offsets;
  }
  // Group g of image b, its product on `gemm_ctx`'s threads; `slice` picks its padded copy.
  const auto run_group = [&](const KernelRuntimeContext& gemm_ctx, int64_t b, int64_t g,
                             int64_t slice) {
    ConvGeometry group = geometry;
    group.input = static_cast<const char*>(input.const_data_ptr()) +
                  (b * in_channels + g * group_in) * height * width * size;
    GemmInput a = {static_cast<const char*>(weight.const_data_ptr()) + g * group_out * k * size,
                   dtype, k, 1};
    if (transposed) {
      group.weight = static_cast<const char*>(weight.const_data_ptr()) +
                     g * group_in * group_out * taps * size;
      a.loader = load_transposed_weight_row;
      a.user = &group;
    }
    GemmInput im2col = {nullptr, dtype, 0, 0, transposed ? load_col2im_row : load_im2col_row,
                        &group};
    if (pointwise) im2col = {group.input, dtype, n, 1};  // the channels' rows as they are
    PaddedImage group_image = image;
    if (image.row_offsets != nullptr) {
      char* copy = planes != nullptr ? planes + slice * plane_elements * size : nullptr;
      if (copy != nullptr) pad_image(group, group_in, copy);
      group_image.padded = copy != nullptr ? copy : group.input;
      im2col = {nullptr, dtype, 0, 0, load_padded_im2col_row, &group_image};
    }
    GemmEpilogue epilogue;
    epilogue.clamp = clamp;
    if (bias.has_value()) {
      epilogue.beta = Scalar(int64_t{1});
      epilogue.c = {static_cast<const char*>(bias->const_data_ptr()) +
                        g * group_out * element_size(bias->scalar_type()),
                    bias->scalar_type(), 1, 0};
    }
    gemm(
        gemm_ctx, group_out, n, k, a, im2col,
        {static_cast<char*>(out.mutable_data_ptr()) + (b * out_channels + g * group_out) * n * size,
         dtype, n},
        epilogue);
  };
  for (int64_t b = 0; b < batches; ++b) {
    if (groups_in_parallel) {
      const KernelRuntimeContext one_thread;
      const int64_t grain = (kGemmGrain + group_work - 1) / group_work;
      parallel_for(ctx, 0, c.groups, grain, [&](int64_t first, int64_t last) {
        for (int64_t g = first; g < last; ++g) run_group(one_thread, b, g, g);
      });
    } else {
      for (int64_t g = 0; g < c.groups; ++g) run_group(ctx, b, g, 0);
    }
  }
  return out;
}

}  // namespace kiln::portable::native
