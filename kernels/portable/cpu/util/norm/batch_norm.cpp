// Batch norm's per-channel statistics and transform (see norm/batch_norm.h).
#include "kernels/portable/cpu/util/norm/batch_norm.h"

#include <cmath>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/norm/normalization.h"
#include "kernels/portable/cpu/util/vec/convert.h"

namespace kiln::portable {

bool check_channel_param(KernelRuntimeContext& ctx, const std::optional<Tensor>& param,
                         const char* name, int64_t channels) {
  if (!param.has_value()) return true;
  if (!check_tensor(ctx, *param, name)) return false;
  KILN_KERNEL_CHECK_MSG(ctx, param->numel() >= channels, InvalidArgument, false,
                        "%s should contain %lld elements not %lld; pass one value per channel",
                        name, static_cast<long long>(channels),
                        static_cast<long long>(param->numel()));
  return true;
}

ChannelLayout ChannelLayout::of(const Tensor& input) {
  int64_t inner = 1;
  for (int64_t d = 2; d < input.dim(); ++d) inner *= input.size(d);
  return {input.size(0), input.size(1), inner};
}

void channel_moments(const Tensor& input, const ChannelLayout& layout, int64_t c, double* mean,
                     double* squares) {
  const ScalarType type = input.scalar_type();
  const size_t element = input.element_size();
  const char* src = static_cast<const char*>(input.const_data_ptr());
  const auto row = [&](int64_t n) {
    return src + ((n * layout.channels + c) * layout.inner) * element;
  };
  double sum = 0;
  for (int64_t n = 0; n < layout.outer; ++n) sum += row_sum(row(n), type, layout.inner);
  const double count = static_cast<double>(layout.outer * layout.inner);
  *mean = sum / count;
  double total = 0;
  for (int64_t n = 0; n < layout.outer; ++n) {
    total += row_squared_deviations(row(n), type, layout.inner, *mean);
  }
  *squares = total;
}

double var_plus_eps(const Tensor& running_var, int64_t c, double eps) {
  const double var = load_double(running_var, c);
  if (running_var.scalar_type() == ScalarType::Double) return var + eps;
  return static_cast<double>(static_cast<float>(var) + static_cast<float>(eps));
}

void normalize_channel(const Tensor& input, const ChannelLayout& layout, int64_t c, double mean,
                       double invstd, const std::optional<Tensor>& weight,
                       const std::optional<Tensor>& bias, Tensor& out) {
  const double scale = (weight.has_value() ? load_double(*weight, c) : 1.0) * invstd;
  const double bias_value = bias.has_value() ? load_double(*bias, c) : 0.0;
  // torch applies the map as x * scale + (bias - mean * scale). The forms agree while scale is
  // finite; an infinite one (var + eps == 0) gives NaN and -inf there, +-inf here, and the
  // result should be torch's.
  const bool infinite = std::isinf(scale);
  const double center = infinite ? 0.0 : mean;
  const double shift = infinite ? bias_value - mean * scale : bias_value;
  const ScalarType type = input.scalar_type();
  const size_t element = input.element_size();
  const char* src = static_cast<const char*>(input.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  for (int64_t n = 0; n < layout.outer; ++n) {
    const int64_t offset = (n * layout.channels + c) * layout.inner;
    scale_shift_row(src + offset * element, dst + offset * element, type, layout.inner, center,
                    scale, shift);
  }
}

void store_double(Tensor& t, int64_t index, double value) {
  store_row<double>(&value, 1, t.scalar_type(),
                    static_cast<char*>(t.mutable_data_ptr()) + index * t.element_size());
}

}  // namespace kiln::portable
