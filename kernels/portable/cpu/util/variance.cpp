// var and std's shared body: two passes in double over each reduced slice.
#include "kernels/portable/cpu/util/variance.h"

#include <cmath>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/reduce.h"
#include "kernels/portable/cpu/util/reduce_runs.h"
#include "kernels/portable/cpu/util/target.h"

namespace kiln::portable {
namespace {

KILN_HOT_LOOP double chunk_sum(const double* x, int64_t n) {
  constexpr int kLanes = 8;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] += x[i + j];
  }
  for (; i < n; ++i) lanes[0] += x[i];
  double total = 0;
  for (int j = 0; j < kLanes; ++j) total += lanes[j];
  return total;
}

KILN_HOT_LOOP double chunk_squared_deviation(const double* x, int64_t n, double mean) {
  constexpr int kLanes = 8;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const double d = x[i + j] - mean;
      lanes[j] += d * d;
    }
  }
  for (; i < n; ++i) lanes[0] += (x[i] - mean) * (x[i] - mean);
  double total = 0;
  for (int j = 0; j < kLanes; ++j) total += lanes[j];
  return total;
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
  const double dof_correction = correction.has_value() ? correction->toDouble() : 1.0;
  const double count = static_cast<double>(layout.count);
  const double divisor = count - dof_correction > 0 ? count - dof_correction : 0.0;
  // Chunked even for a Double input, so the lane sums do not depend on the input dtype.
  RunReader<double> reader(self, layout, /*in_place=*/false);
  store_outputs<double>(layout, out, [&](int64_t base) {
    double sum = 0;
    reader.visit(base, [&](const double* x, int64_t n) { sum += chunk_sum(x, n); });
    const double mean = sum / count;
    double squares = 0;
    reader.visit(
        base, [&](const double* x, int64_t n) { squares += chunk_squared_deviation(x, n, mean); });
    const double var = squares / divisor;
    return take_sqrt ? std::sqrt(var) : var;
  });
  return out;
}

}  // namespace kiln::portable
