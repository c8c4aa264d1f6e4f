// var, std and var_mean's shared body: two passes in double over each reduced slice.
#include "kernels/portable/cpu/util/reduce/variance.h"

#include <cmath>
#include <limits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/reduce/plan.h"
#include "kernels/portable/cpu/util/reduce/runs.h"
#include "kernels/portable/cpu/util/vec/convert.h"

namespace kiln::portable {
namespace {

KILN_HOT_LOOP double chunk_sum(const double* x, int64_t n) {
  constexpr int kLanes = 8;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    KILN_UNROLL
    for (int j = 0; j < kLanes; ++j) lanes[j] += x[i + j];
  }
  for (; i < n; ++i) lanes[0] += x[i];
  double total = 0;
  KILN_UNROLL
  for (int j = 0; j < kLanes; ++j) total += lanes[j];
  return total;
}

KILN_HOT_LOOP double chunk_squared_deviation(const double* x, int64_t n, double mean) {
  constexpr int kLanes = 8;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    KILN_UNROLL
    for (int j = 0; j < kLanes; ++j) {
      const double d = x[i + j] - mean;
      lanes[j] += d * d;
    }
  }
  for (; i < n; ++i) lanes[0] += (x[i] - mean) * (x[i] - mean);
  double total = 0;
  KILN_UNROLL
  for (int j = 0; j < kLanes; ++j) total += lanes[j];
  return total;
}

// ATen's var_mean takes the mean from a running (Welford) update, in element order: once it
// meets an infinity every later element turns it into NaN. So an infinite sum stays the mean
// only when its one infinity is the last element; otherwise ATen reports NaN.
double welford_infinite_mean(RunReader<double>& reader, int64_t base, double mean) {
  int64_t infinities = 0;
  bool last_infinite = false;
  reader.visit(base, [&](const double* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) infinities += std::isinf(x[i]) ? 1 : 0;
    if (n > 0) last_infinite = std::isinf(x[n - 1]);
  });
  return infinities == 1 && last_infinite ? mean : std::numeric_limits<double>::quiet_NaN();
}

// The variance of every output of `layout` (or its square root) into out and, when `mean_out` is
// set, the mean into it.
void store_variance(const Tensor& self, const ReduceLayout& layout,
                    const std::optional<Scalar>& correction, bool take_sqrt, Tensor& out,
                    Tensor* mean_out) {
  const double dof_correction = correction.has_value() ? correction->toDouble() : 1.0;
  const double count = static_cast<double>(layout.count);
  const double divisor = count - dof_correction > 0 ? count - dof_correction : 0.0;
  char* mean_dst = mean_out != nullptr ? static_cast<char*>(mean_out->mutable_data_ptr()) : nullptr;
  int64_t index = 0;
  // Chunked even for a Double input, so the lane sums do not depend on the input dtype. As in
  // ATen, the input is first converted to the out dtype (a Float input to a Half out computes
  // on Half values).
  RunReader<double> reader(self, layout, /*in_place=*/false, out.scalar_type());
  store_outputs<double>(layout, out, [&](int64_t base) {
    double sum = 0;
    reader.visit(base, [&](const double* x, int64_t n) { sum += chunk_sum(x, n); });
    const double mean = sum / count;
    double squares = 0;
    reader.visit(
        base, [&](const double* x, int64_t n) { squares += chunk_squared_deviation(x, n, mean); });
    if (mean_dst != nullptr) {
      const double reported = std::isinf(mean) ? welford_infinite_mean(reader, base, mean) : mean;
      store_row<double>(&reported, 1, mean_out->scalar_type(),
                        mean_dst + index++ * mean_out->element_size());
    }
    const double var = squares / divisor;
    return take_sqrt ? std::sqrt(var) : var;
  });
}

}  // namespace

Tensor& var_std(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                const std::optional<Scalar>& correction, bool keepdim, bool take_sqrt,
                Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(self.scalar_type()), InvalidType, out,
                        "std and var only support floating point and complex dtypes (got %s); "
                        "convert the input to a floating dtype",
                        to_string(self.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(out.scalar_type()), InvalidArgument, out,
                        "Expected out tensor to have a floating dtype, but got %s",
                        to_string(out.scalar_type()));
  DimMask mask = 0;
  if (!make_dim_mask(ctx, dim, self.dim(), &mask)) return out;
  if (!resize_reduced(ctx, self, mask, keepdim, out)) return out;
  // ATen's whole-tensor path (one output) has no Half/BFloat16 version for a wider out.
  KILN_KERNEL_CHECK_MSG(
      ctx,
      !(is_reduced_floating_type(self.scalar_type()) && self.numel() > 0 && out.numel() == 1 &&
        (out.scalar_type() == ScalarType::Float || out.scalar_type() == ScalarType::Double)),
      InvalidType, out, "std_var_all: Unsupported dtype %s; pass an out tensor of dtype %s",
      to_string(self.scalar_type()), to_string(self.scalar_type()));
  if (out.numel() == 0) return out;
  ReduceLayout layout;
  make_reduce_layout(self.sizes(), mask, &layout);
  store_variance(self, layout, correction, take_sqrt, out, nullptr);
  return out;
}

std::tuple<Tensor&, Tensor&> var_mean(KernelRuntimeContext& ctx, const Tensor& self,
                                      std::optional<IntArrayRef> dim,
                                      const std::optional<Scalar>& correction, bool keepdim,
                                      Tensor& var_out, Tensor& mean_out) {
  std::tuple<Tensor&, Tensor&> result(var_out, mean_out);
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, var_out, "out0") ||
      !check_tensor(ctx, mean_out, "out1")) {
    return result;
  }
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(dtype), InvalidType, result,
                        "var_mean only support floating point and complex dtypes (got %s); "
                        "convert the input to a floating dtype",
                        to_string(dtype));
  if (!check_out_dtype_is(ctx, var_out, dtype) || !check_out_dtype_is(ctx, mean_out, dtype)) {
    return result;
  }
  DimMask mask = 0;
  if (!make_dim_mask(ctx, dim, self.dim(), &mask)) return result;
  if (!resize_reduced(ctx, self, mask, keepdim, var_out) ||
      !resize_reduced(ctx, self, mask, keepdim, mean_out)) {
    return result;
  }
  if (var_out.numel() == 0) return result;
  ReduceLayout layout;
  make_reduce_layout(self.sizes(), mask, &layout);
  store_variance(self, layout, correction, /*take_sqrt=*/false, var_out, &mean_out);
  return result;
}

}  // namespace kiln::portable
