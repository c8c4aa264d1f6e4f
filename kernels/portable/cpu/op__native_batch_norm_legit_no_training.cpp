// _native_batch_norm_legit_no_training.out: y = (x - running_mean) / sqrt(running_var + eps) *
// weight + bias per channel (dim 1); out1/out2 come back empty, as ATen returns them.
#include <cmath>
#include <tuple>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/norm/batch_norm.h"
#include "kernels/portable/cpu/util/norm/normalization.h"

namespace kiln::portable::native {

std::tuple<Tensor&, Tensor&, Tensor&> native_batch_norm_legit_no_training_out(
    KernelRuntimeContext& ctx, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, const Tensor& running_mean, const Tensor& running_var,
    double momentum, double eps, Tensor& out0, Tensor& out1, Tensor& out2) {
  (void)momentum;  // only training updates the running stats
  std::tuple<Tensor&, Tensor&, Tensor&> result(out0, out1, out2);
  if (!check_tensor(ctx, input, "input") || !check_tensor(ctx, out0, "out0") ||
      !check_tensor(ctx, out1, "out1") || !check_tensor(ctx, out2, "out2")) {
    return result;
  }
  int64_t channel_dim = 0;
  if (!wrap_dim(ctx, 1, input.dim(), &channel_dim)) return result;
  const int64_t channels = input.size(1);
  const std::optional<Tensor> params[4] = {weight, bias, running_mean, running_var};
  if (!check_channel_param(ctx, weight, "weight", channels) ||
      !check_channel_param(ctx, bias, "bias", channels) ||
      !check_channel_param(ctx, params[2], "running_mean", channels) ||
      !check_channel_param(ctx, params[3], "running_var", channels)) {
    return result;
  }
  const ScalarType dtype = input.scalar_type();
  ScalarType stat_type = dtype;
  if (!norm_param_types(ctx, "batch_norm", dtype, params, 4, &stat_type)) return result;
  if (!check_out_dtype_is(ctx, out0, dtype) || !check_out_dtype_is(ctx, out1, stat_type) ||
      !check_out_dtype_is(ctx, out2, stat_type)) {
    return result;
  }
  const SizesType empty[1] = {0};
  if (!resize_or_fail(ctx, out0, input.sizes()) || !resize_or_fail(ctx, out1, {empty, 1}) ||
      !resize_or_fail(ctx, out2, {empty, 1})) {
    return result;
  }
  if (input.numel() == 0) return result;
  const ChannelLayout layout = ChannelLayout::of(input);
  parallel_for(ctx, 0, channels, items_grain(layout.outer * layout.inner),
               [&](int64_t first, int64_t last) {
                 for (int64_t c = first; c < last; ++c) {
                   const double invstd = 1.0 / std::sqrt(var_plus_eps(running_var, c, eps));
                   normalize_channel(input, layout, c, load_double(running_mean, c), invstd, weight,
                                     bias, out0);
                 }
               });
  return result;
}

}  // namespace kiln::portable::native
