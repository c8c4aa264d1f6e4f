// ExecuTorch's choice of affine parameters for values in [min, max] (choose_qparams and its
// per-token form): the rule of its quantized kernels, which follows FBGEMM's rather than torch's
// reference (determine_qparams): eps is not used, a scale below 6.1e-5 (the smallest normal
// float16) is raised to it with the range widened to match, and the zero point comes from the
// end of the range whose error is smaller. Header-only: the portable and the ATen-mode kernels
// compute the same numbers from the same code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kiln::portable {

struct ChosenQParams {
  double scale;
  int64_t zero_point;
};

// min and max are finite; quant_min < quant_max.
inline ChosenQParams choose_qparams_for_range(float min, float max, int64_t quant_min,
                                              int64_t quant_max) {
  // The range always holds 0, so that 0.0 has an exact quantized value (the zero point).
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  const double levels = static_cast<double>(quant_max - quant_min);
  double scale = (static_cast<double>(max) - min) / levels;
  // A range with nothing in it, or one whose float scale has no float inverse, takes 0.1.
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) {
    scale = 0.1;
  }
  constexpr float kSmallestScale = 6.1e-5f;
  if (scale < kSmallestScale) {
    const float raise = kSmallestScale / static_cast<float>(scale);
    scale = kSmallestScale;
    if (min == 0.0f) {
      max = kSmallestScale * static_cast<float>(levels);
    } else if (max == 0.0f) {
      min = -kSmallestScale * static_cast<float>(levels);
    } else {
      min *= raise;
      max *= raise;
    }
  }
  const double low = static_cast<double>(quant_min);
  const double high = static_cast<double>(quant_max);
  const double from_min = low - min / scale;
  const double from_max = high - max / scale;
  const double min_error = std::abs(low) - std::abs(min / scale);
  const double max_error = std::abs(high) - std::abs(max / scale);
  const double zero_point = min_error < max_error ? from_min : from_max;
  if (zero_point < low) return {scale, quant_min};
  if (zero_point > high) return {scale, quant_max};
  return {scale, static_cast<int64_t>(std::nearbyint(static_cast<float>(zero_point)))};
}

}  // namespace kiln::portable
