// _native_batch_norm_legit.out and .no_stats_out: batch norm over channel dim 1. Training
// normalises with each channel's batch mean and biased variance, returns them as save_mean and
// save_invstd = 1 / sqrt(var + eps), and (.out) moves the running statistics toward them:
// running = momentum * batch + (1 - momentum) * running, the variance unbiased. Otherwise the
// running statistics normalise, and save_mean/save_invstd are left as they are (as ATen does).
#include <cmath>
#include <tuple>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/norm/batch_norm.h"
#include "kernels/portable/cpu/util/norm/normalization.h"

namespace kiln::portable::native {
namespace {

using Outs = std::tuple<Tensor&, Tensor&, Tensor&>;

// Both overloads; running_mean/running_var are null for .no_stats_out.
Outs batch_norm_legit(KernelRuntimeContext& ctx, const Tensor& input,
                      const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                      Tensor* running_mean, Tensor* running_var, bool training, double momentum,
                      double eps, Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  Outs result(out, save_mean, save_invstd);
  if (!check_tensor(ctx, input, "input") || !check_tensor(ctx, out, "out")) return result;
  KILN_KERNEL_CHECK_MSG(ctx, training || running_mean != nullptr, InvalidArgument, result,
                        "without running statistics batch norm can only train (training=True); "
                        "for inference call _native_batch_norm_legit.out with running_mean and "
                        "running_var, or _native_batch_norm_legit_no_training.out");
  int64_t channel_dim = 0;
  if (!wrap_dim(ctx, 1, input.dim(), &channel_dim)) return result;
  const int64_t channels = input.size(1);
  std::optional<Tensor> params[4] = {weight, bias, std::nullopt, std::nullopt};
  if (running_mean != nullptr) params[2] = *running_mean;
  if (running_var != nullptr) params[3] = *running_var;
  if (!check_channel_param(ctx, weight, "weight", channels) ||
      !check_channel_param(ctx, bias, "bias", channels) ||
      !check_channel_param(ctx, params[2], "running_mean", channels) ||
      !check_channel_param(ctx, params[3], "running_var", channels)) {
    return result;
  }
  const ScalarType dtype = input.scalar_type();
  ScalarType stat_type = dtype;
  if (!norm_param_types(ctx, "batch_norm", dtype, params, 4, &stat_type)) return result;
  if (!check_out_dtype_is(ctx, out, dtype)) return result;
  const ChannelLayout layout = ChannelLayout::of(input);
  // Channels are independent (each thread writes its own statistics and outputs).
  const int64_t grain = items_grain(layout.outer * layout.inner);

  if (!training) {
    if (!resize_or_fail(ctx, out, input.sizes()) || input.numel() == 0) return result;
    parallel_for(ctx, 0, channels, grain, [&](int64_t first, int64_t last) {
      for (int64_t c = first; c < last; ++c) {
        const double invstd = 1.0 / std::sqrt(var_plus_eps(*running_var, c, eps));
        normalize_channel(input, layout, c, load_double(*running_mean, c), invstd, weight, bias,
                          out);
      }
    });
    return result;
  }

  if (!check_tensor(ctx, save_mean, "save_mean") ||
      !check_tensor(ctx, save_invstd, "save_invstd") ||
      !check_out_dtype_is(ctx, save_mean, stat_type) ||
      !check_out_dtype_is(ctx, save_invstd, stat_type)) {
    return result;
  }
  KILN_KERNEL_CHECK_MSG(ctx, input.numel() != 0, InvalidArgument, result,
                        "input tensor must have at least one element, but got input_sizes = %s",
                        format_shape(input.sizes()).text);
  const SizesType stat_sizes[1] = {channels};
  if (!resize_or_fail(ctx, out, input.sizes()) ||
      !resize_or_fail(ctx, save_mean, {stat_sizes, 1}) ||
      !resize_or_fail(ctx, save_invstd, {stat_sizes, 1})) {
    return result;
  }
  const double count = static_cast<double>(layout.outer * layout.inner);
  parallel_for(ctx, 0, channels, grain, [&](int64_t first, int64_t last) {
    for (int64_t c = first; c < last; ++c) {
      double mean = 0, squares = 0;
      channel_moments(input, layout, c, &mean, &squares);
      const double var = squares / count;
      // ATen's InvStd: no epsilon and no spread give 0, not infinity.
      const double invstd = var == 0 && eps == 0 ? 0.0 : 1.0 / std::sqrt(var + eps);
      store_double(save_mean, c, mean);
      store_double(save_invstd, c, invstd);
      if (running_mean != nullptr) {
        store_double(*running_mean, c,
                     momentum * mean + (1 - momentum) * load_double(*running_mean, c));
      }
      if (running_var != nullptr) {
        // One sample per channel divides 0 by 0: NaN, as in ATen.
        const double unbiased = squares / (count - 1);
        store_double(*running_var, c,
                     momentum * unbiased + (1 - momentum) * load_double(*running_var, c));
      }
      // The transform uses the statistics as returned (rounded to their dtype), as ATen's does.
      normalize_channel(input, layout, c, load_double(save_mean, c), load_double(save_invstd, c),
                        weight, bias, out);
    }
  });
  return result;
}

}  // namespace

Outs native_batch_norm_legit_out(KernelRuntimeContext& ctx, const Tensor& input,
                                 const std::optional<Tensor>& weight,
                                 const std::optional<Tensor>& bias, Tensor& running_mean,
                                 Tensor& running_var, bool training, double momentum, double eps,
                                 Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  if (!check_tensor(ctx, running_mean, "running_mean") ||
      !check_tensor(ctx, running_var, "running_var")) {
    return Outs(out, save_mean, save_invstd);
  }
  return batch_norm_legit(ctx, input, weight, bias, &running_mean, &running_var, training, momentum,
                          eps, out, save_mean, save_invstd);
}

Outs native_batch_norm_legit_no_stats_out(KernelRuntimeContext& ctx, const Tensor& input,
                                          const std::optional<Tensor>& weight,
                                          const std::optional<Tensor>& bias, bool training,
                                          double momentum, double eps, Tensor& out,
                                          Tensor& save_mean, Tensor& save_invstd) {
  return batch_norm_legit(ctx, input, weight, bias, nullptr, nullptr, training, momentum, eps, out,
                          save_mean, save_invstd);
}

}  // namespace kiln::portable::native
