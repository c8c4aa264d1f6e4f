#include "kernels/portable/cpu/util/quantized/choose.h"

#include <algorithm>

#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/llm/common.h"

namespace kiln::portable {
namespace {

struct FloatRange {
  float min;
  float max;
  bool finite;
};

// Branch-free, so it vectorises: x - x is 0 exactly for finite x and NaN otherwise.
KILN_HOT_LOOP FloatRange range_of(const float* x, int64_t n, FloatRange range) {
  float lo = range.min;
  float hi = range.max;
  float finite_probe = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
    finite_probe += x[i] - x[i];
  }
  return {lo, hi, range.finite && finite_probe == 0.0f};
}

}  // namespace

bool finite_range(const void* data, ScalarType type, int64_t n, float* min, float* max) {
  const float* first = static_cast<const float*>(data);
  float buffer[kLlmChunk];
  if (type != ScalarType::Float) {
    load_floats(data, type, 1, 1, buffer);
    first = buffer;
  }
  FloatRange range{first[0], first[0], true};
  if (type == ScalarType::Float) {
    range = range_of(first, n, range);
  } else {
    const char* bytes = static_cast<const char*>(data);
    for (int64_t start = 0; start < n; start += kLlmChunk) {
      const int64_t count = std::min(kLlmChunk, n - start);
      load_floats(bytes + start * element_size(type), type, 1, count, buffer);
      range = range_of(buffer, count, range);
    }
  }
  *min = range.min;
  *max = range.max;
  return range.finite;
}

}  // namespace kiln::portable
