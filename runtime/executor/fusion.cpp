#include "runtime/executor/fusion.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kiln {
namespace {

// A bound as a double that converts to the out's dtype as the activation's kernel converts it.
bool bound_of(const EValue& value, double* bound) {
  constexpr int64_t kExact = int64_t{1} << 53;  // integers a double holds exactly
  if (value.isDouble()) {
    *bound = value.toDouble();
    return !std::isnan(*bound);
  }
  if (value.isInt()) {
    const int64_t integer = value.toInt();
    if (integer > kExact || integer < -kExact) return false;
    *bound = static_cast<double>(integer);
    return true;
  }
  return false;  // a Bool bound: hardtanh and clamp refuse it for floating selfs anyway
}

}  // namespace

bool activation_of(const char* op, Span<EValue*> arguments, ActivationCall* call) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  const size_t n = arguments.size();
  if (std::strcmp(op, "aten::relu.out") == 0 && n == 2) {
    *call = {{0.0, kInfinity}, 0, 1};
    return true;
  }
  const bool hardtanh = std::strcmp(op, "aten::hardtanh.out") == 0;
  const bool clamp = std::strcmp(op, "aten::clamp.out") == 0;
  if (!(hardtanh || clamp) || n != 4) return false;
  double low = -kInfinity, high = kInfinity;
  const bool has_low = !arguments[1]->isNone(), has_high = !arguments[2]->isNone();
  if (hardtanh && !(has_low && has_high)) return false;
  if (!has_low && !has_high) return false;  // clamp refuses it
  if (has_low && !bound_of(*arguments[1], &low)) return false;
  if (has_high && !bound_of(*arguments[2], &high)) return false;
  if (low > high) return false;
  *call = {{low, high}, 0, 3};
  return true;
}

namespace {

template <typename T>
void fold_typed(const BatchNormFold& fold, T* weight_out, T* bias_out) {
  const int64_t channels = fold.weight->size(0);
  const int64_t per_channel = channels == 0 ? 0 : fold.weight->numel() / channels;
  const T* weight = fold.weight->template const_data_ptr<T>();
  auto at = [](const Tensor* tensor, int64_t c, double absent) {
    return tensor == nullptr ? absent
                             : static_cast<double>(tensor->template const_data_ptr<T>()[c]);
  };
  for (int64_t c = 0; c < channels; ++c) {
    const double scale = at(fold.gamma, c, 1.0) / std::sqrt(at(fold.var, c, 0.0) + fold.eps);
    for (int64_t i = 0; i < per_channel; ++i) {
      const int64_t k = c * per_channel + i;
      weight_out[k] = static_cast<T>(static_cast<double>(weight[k]) * scale);
    }
    bias_out[c] = static_cast<T>((at(fold.bias, c, 0.0) - at(fold.mean, c, 0.0)) * scale +
                                 at(fold.beta, c, 0.0));
  }
}

bool per_channel(const Tensor* tensor, ScalarType dtype, int64_t channels, bool optional) {
  if (tensor == nullptr) return optional;
  return tensor->scalar_type() == dtype && tensor->dim() == 1 && tensor->size(0) == channels &&
         (channels == 0 || tensor->const_data_ptr() != nullptr);
}

// Every channel's scale is finite: with var + eps <= 0 (or an infinite gamma) the unfused batch
// norm decides the result (NaN or infinities), which weights scaled by it would not reproduce.
template <typename T>
bool finite_scales(const BatchNormFold& fold) {
  const int64_t channels = fold.weight->size(0);
  for (int64_t c = 0; c < channels; ++c) {
    // var + eps in T, as torch adds them.
    const T var_eps = fold.var->template const_data_ptr<T>()[c] + static_cast<T>(fold.eps);
    const double gamma = fold.gamma == nullptr
                             ? 1.0
                             : static_cast<double>(fold.gamma->template const_data_ptr<T>()[c]);
    if (!(var_eps > 0) || !std::isfinite(gamma / std::sqrt(static_cast<double>(var_eps)))) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool batch_norm_folds(const BatchNormFold& fold) {
  const Tensor& weight = *fold.weight;
  const ScalarType dtype = weight.scalar_type();
  if (dtype != ScalarType::Float && dtype != ScalarType::Double) return false;
  if (weight.dim() < 2 || weight.dim_order()[0] != 0) return false;
  if (weight.numel() > 0 && weight.const_data_ptr() == nullptr) return false;
  const int64_t channels = weight.size(0);
  const bool shapes = per_channel(fold.bias, dtype, channels, true) &&
                      per_channel(fold.gamma, dtype, channels, true) &&
                      per_channel(fold.beta, dtype, channels, true) &&
                      per_channel(fold.mean, dtype, channels, false) &&
                      per_channel(fold.var, dtype, channels, false);
  if (!shapes) return false;
  return dtype == ScalarType::Float ? finite_scales<float>(fold) : finite_scales<double>(fold);
}

void fold_batch_norm(const BatchNormFold& fold, void* weight_out, void* bias_out) {
  if (fold.weight->scalar_type() == ScalarType::Float) {
    fold_typed<float>(fold, static_cast<float*>(weight_out), static_cast<float*>(bias_out));
  } else {
    fold_typed<double>(fold, static_cast<double*>(weight_out), static_cast<double*>(bias_out));
  }
}

}  // namespace kiln
