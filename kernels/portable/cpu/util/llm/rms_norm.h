// RMS norm rows for kiln::rms_norm and kiln::fused_add_rms_norm, in vLLM's arithmetic: the mean
// square in float, x * rstd rounded to the input's dtype, then times the weight.
#pragma once

#include <cstdint>

#include "runtime/core/scalar_type.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// y = round(x * rstd) * w over `rows` rows of n contiguous elements of dtype `type` (Float, Half
// or BFloat16; w has n elements of that dtype), rstd = 1 / sqrt(mean(x^2) + eps). y may be x.
// Rows are split over ctx's thread pool.
void rms_norm_rows(const KernelRuntimeContext& ctx, const void* x, const void* w, void* y,
                   ScalarType type, int64_t rows, int64_t n, float eps);

// The residual add, then the norm of the sum: sum = round(x + r) is written to `sum` and
// y = rms_norm(sum) as above. `sum` may be r and y may be x (vLLM's in-place form).
void add_rms_norm_rows(const KernelRuntimeContext& ctx, const void* x, const void* r, const void* w,
                       void* y, void* sum, ScalarType type, int64_t rows, int64_t n, float eps);

}  // namespace kiln::portable
