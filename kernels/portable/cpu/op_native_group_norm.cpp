// native_group_norm.out: normalises each of `group` channel groups per sample over its channels
// and HxW positions; out1/out2 get the [N, group] means and 1/sqrt(var + eps).
#include <tuple>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/norm/normalization.h"

namespace kiln::portable::native {
namespace {

bool check_channel_param(KernelRuntimeContext& ctx, const std::optional<Tensor>& param,
                         const char* name, int64_t channels, const Tensor& input) {
  if (!param.has_value()) return true;
  if (!check_tensor(ctx, *param, name)) return false;
  KILN_KERNEL_CHECK_MSG(
      ctx, param->dim() == 1 && param->numel() == channels, InvalidArgument, false,
      "Expected %s to be a vector of size equal to the number of channels in "
      "input, but got %s of shape %s and input of shape %s",
      name, name, format_shape(param->sizes()).text, format_shape(input.sizes()).text);
  return true;
}

}  // namespace

std::tuple<Tensor&, Tensor&, Tensor&> native_group_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, int64_t N, int64_t C, int64_t HxW, int64_t group, double eps,
    Tensor& out0, Tensor& out1, Tensor& out2) {
  std::tuple<Tensor&, Tensor&, Tensor&> result(out0, out1, out2);
  if (!check_tensor(ctx, input, "input") || !check_tensor(ctx, out0, "out0") ||
      !check_tensor(ctx, out1, "out1") || !check_tensor(ctx, out2, "out2")) {
    return result;
  }
  KILN_KERNEL_CHECK_MSG(ctx, group > 0 && C % group == 0, InvalidArgument, result,
                        "Expected number of channels in input to be divisible by num_groups, but "
                        "got input of shape %s and num_groups=%lld",
                        format_shape(input.sizes()).text, static_cast<long long>(group));
  KILN_KERNEL_CHECK_MSG(ctx, N >= 0 && C >= 0 && HxW >= 0 && input.numel() == N * C * HxW,
                        InvalidArgument, result,
                        "Expected X.numel() == N * C * HxW to be true, but got %lld != %lld * "
                        "%lld * %lld",
                        static_cast<long long>(input.numel()), static_cast<long long>(N),
                        static_cast<long long>(C), static_cast<long long>(HxW));
  if (!check_channel_param(ctx, weight, "weight", C, input) ||
      !check_channel_param(ctx, bias, "bias", C, input)) {
    return result;
  }
  const ScalarType dtype = input.scalar_type();
  const std::optional<Tensor> params[2] = {weight, bias};
  ScalarType stat_type = dtype;
  if (!norm_param_types(ctx, "GroupNormKernelImpl", dtype, params, 2, &stat_type)) return result;
  if (!check_out_dtype_is(ctx, out0, dtype) || !check_out_dtype_is(ctx, out1, stat_type) ||
      !check_out_dtype_is(ctx, out2, stat_type)) {
    return result;
  }
  const SizesType stat_sizes[2] = {static_cast<SizesType>(N), static_cast<SizesType>(group)};
  if (!resize_or_fail(ctx, out0, input.sizes()) || !resize_or_fail(ctx, out1, {stat_sizes, 2}) ||
      !resize_or_fail(ctx, out2, {stat_sizes, 2})) {
    return result;
  }
  const int64_t group_channels = C / group;
  const int64_t group_size = group_channels * HxW;
  const size_t element = input.element_size();
  const char* src = static_cast<const char*>(input.const_data_ptr());
  char* dst = static_cast<char*>(out0.mutable_data_ptr());
  parallel_for(ctx, 0, N * group, items_grain(group_size), [&](int64_t first, int64_t last) {
    for (int64_t index = first; index < last; ++index) {
      const int64_t g = index % group;
      const int64_t start = index * group_size;
      const RowStats stats = RowStats::of(src + start * element, dtype, group_size, eps);
      stats.store(out1, out2, index);
      for (int64_t k = 0; k < group_channels; ++k) {
        const int64_t c = g * group_channels + k;
        const double scale = (weight.has_value() ? load_double(*weight, c) : 1.0) * stats.rstd;
        const double shift = bias.has_value() ? load_double(*bias, c) : 0.0;
        const int64_t offset = start + k * HxW;
        scale_shift_row(src + offset * element, dst + offset * element, dtype, HxW, stats.mean,
                        scale, shift);
      }
    }
  });
  return result;
}

}  // namespace kiln::portable::native
