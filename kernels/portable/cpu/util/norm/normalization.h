// Row statistics and affine row transforms for layer, group and batch norm (floating dtypes).
#pragma once

#include <cstdint>
#include <optional>

#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// A normalised row's statistics, as layer and group norm compute and return them.
struct RowStats {
  double mean;
  double rstd;  // 1 / sqrt(biased variance + eps)

  // The statistics of n contiguous elements of dtype `type` at `src`, the mean and biased
  // variance in two passes in double (stable where a one-pass sum of squares cancels); over
  // nothing, mean 0 and rstd NaN (as ATen).
  static RowStats of(const void* src, ScalarType type, int64_t n, double eps);

  // Stores them as element `index` of the mean and rstd outputs.
  void store(Tensor& mean_out, Tensor& rstd_out, int64_t index) const;
};

// sum(x) over n contiguous elements of dtype `type` at `src`, accumulated in the input's compute
// type in short blocks that add up in double (as RowStats::of sums).
double row_sum(const void* src, ScalarType type, int64_t n);

// sum((x - mean)^2) over the same elements, accumulated alike.
double row_squared_deviations(const void* src, ScalarType type, int64_t n, double mean);

// Elements [start, start + n) of an optional per-feature tensor (weight or bias), as an affine
// row transform reads them; a missing tensor reads as null.
struct AffineParams {
  const void* weight = nullptr;  // null: all ones
  ScalarType weight_type = ScalarType::Float;
  const void* bias = nullptr;  // null: all zeros
  ScalarType bias_type = ScalarType::Float;

  static AffineParams of(const std::optional<Tensor>& weight, const std::optional<Tensor>& bias);
};

// dst[i] = ((src[i] - mean) * rstd) * weight[offset + i] + bias[offset + i] for i < n, src and
// dst of dtype `type` (computed in float, or double for Double).
void normalize_row(const void* src, void* dst, ScalarType type, int64_t n, double mean, double rstd,
                   const AffineParams& params, int64_t offset);

// dst[i] = (src[i] - center) * scale + shift for i < n, src and dst of dtype `type` (centring
// first keeps an element equal to the center exactly at `shift`).
void scale_shift_row(const void* src, void* dst, ScalarType type, int64_t n, double center,
                     double scale, double shift);

// ATen's CPU dtype rule for a norm's parameters (weight, bias, running stats; absent ones are
// skipped): all of the input's dtype, or all Float with a Half/BFloat16 input (mixed precision).
// Sets `stat_type`, the dtype of the mean/rstd outputs; false after ctx.fail otherwise. Also
// requires a floating input, naming `op` in the message.
bool norm_param_types(KernelRuntimeContext& ctx, const char* op, ScalarType input_type,
                      const std::optional<Tensor>* params, int count, ScalarType* stat_type);

// The element at `index` of a tensor of any supported dtype, as double.
double load_double(const Tensor& tensor, int64_t index);

}  // namespace kiln::portable
