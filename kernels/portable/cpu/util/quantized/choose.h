// The portable side of ExecuTorch's choose_qparams operators: the range of a row of values,
// which util/quantized/qparams.h turns into a scale and zero point.
#pragma once

#include <cstdint>

#include "runtime/core/scalar_type.h"

namespace kiln::portable {

// The smallest and largest of n > 0 contiguous values of a Float, Half or BFloat16 row. False,
// with *min and *max unspecified, when a value is NaN or infinite: no finite range holds it.
bool finite_range(const void* data, ScalarType type, int64_t n, float* min, float* max);

}  // namespace kiln::portable
