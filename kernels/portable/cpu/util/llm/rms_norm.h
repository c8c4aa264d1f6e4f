// RMS norm rows for kiln::rms_norm and kiln::fused_add_rms_norm, in vLLM's arithmetic: the mean
// square in float, x * rstd rounded to the input's dtype, then times the weight.
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// y = round(x * rstd) * w over `rows` rows of n elements of x's dtype (Float, Half or BFloat16;
// w has n elements of that dtype), rstd = 1 / sqrt(mean(x^2) + eps). x and y are row views
// (arguments.h) of one shape; y may be x. Rows are split over ctx's thread pool.
void rms_norm_rows(const KernelRuntimeContext& ctx, const Tensor& x, const Tensor& w, Tensor& y,
                   int64_t rows, int64_t n, float eps);

// The residual add, then the norm of the sum: sum = round(x + r) is written to `sum` and
// y = rms_norm(sum) as above. `sum` may be r and y may be x (vLLM's in-place form).
void add_rms_norm_rows(const KernelRuntimeContext& ctx, const Tensor& x, const Tensor& r,
                       const Tensor& w, Tensor& y, Tensor& sum, int64_t rows, int64_t n, float eps);

}  // namespace kiln::portable
