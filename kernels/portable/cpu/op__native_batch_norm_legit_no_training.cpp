// _native_batch_norm_legit_no_training.out: y = (x - running_mean) / sqrt(running_var + eps) *
// weight + bias per channel (dim 1); out1/out2 come back empty, as ATen returns them.
#include <cmath>
#include <tuple>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/normalization.h"

namespace kiln::portable::native {
namespace {

// A per-channel tensor needs at least `channels` elements (ATen reads the first `channels`).
bool check_channels(KernelRuntimeContext& ctx, const std::optional<Tensor>& param, const char* name,
                    int64_t channels) {
  if (!param.has_value()) return true;
  if (!check_tensor(ctx, *param, name)) return false;
  KILN_KERNEL_CHECK_MSG(ctx, param->numel() >= channels, InvalidArgument, false,
                        "%s should contain %lld elements not %lld; pass one value per channel",
                        name, static_cast<long long>(channels),
                        static_cast<long long>(param->numel()));
  return true;
}

}  // namespace

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
  if (!check_channels(ctx, weight, "weight", channels) ||
      !check_channels(ctx, bias, "bias", channels) ||
      !check_channels(ctx, params[2], "running_mean", channels) ||
      !check_channels(ctx, params[3], "running_var", channels)) {
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
  int64_t inner = 1;
  for (int64_t d = 2; d < input.dim(); ++d) inner *= input.size(d);
  const int64_t outer = input.size(0);
  const size_t element = input.element_size();
  const char* src = static_cast<const char*>(input.const_data_ptr());
  char* dst = static_cast<char*>(out0.mutable_data_ptr());
  for (int64_t c = 0; c < channels; ++c) {
    const double invstd = 1.0 / std::sqrt(load_double(running_var, c) + eps);
    const double scale = (weight.has_value() ? load_double(*weight, c) : 1.0) * invstd;
    const double shift = bias.has_value() ? load_double(*bias, c) : 0.0;
    const double center = load_double(running_mean, c);
    for (int64_t n = 0; n < outer; ++n) {
      const int64_t offset = (n * channels + c) * inner;
      scale_shift_row(src + offset * element, dst + offset * element, dtype, inner, center, scale,
                      shift);
    }
  }
  return result;
}

}  // namespace kiln::portable::native
