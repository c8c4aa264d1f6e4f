// var and std's shared body: two passes in double over each reduced slice.
#include "kernels/portable/cpu/util/variance.h"

#include <cmath>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/convert.h"
#include "kernels/portable/cpu/util/reduce.h"
#include "kernels/portable/cpu/util/target.h"

namespace kiln::portable {
namespace {

constexpr int64_t kChunk = 256;

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
  const ScalarType in_type = self.scalar_type();
  const size_t in_size = self.element_size();
  const char* src = static_cast<const char*>(self.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  double buf[kChunk];
  double results[kChunk];
  int64_t pending = 0;
  int64_t written = 0;
  auto visit = [&](int64_t base, auto&& fn) {
    for_each_run(layout, base, [&](int64_t offset) {
      for (int64_t s = 0; s < layout.run_size; s += kChunk) {
        const int64_t m = layout.run_size - s < kChunk ? layout.run_size - s : kChunk;
        load_row<double>(src + (offset + s * layout.run_stride) * in_size, in_type,
                         layout.run_stride, m, buf);
        fn(m);
      }
    });
  };
  for_each_output(layout, [&](int64_t base) {
    double sum = 0;
    visit(base, [&](int64_t n) { sum += chunk_sum(buf, n); });
    const double mean = sum / count;
    double squares = 0;
    visit(base, [&](int64_t n) { squares += chunk_squared_deviation(buf, n, mean); });
    const double var = squares / divisor;
    results[pending++] = take_sqrt ? std::sqrt(var) : var;
    if (pending == kChunk) {
      store_row<double>(results, pending, out.scalar_type(), dst + written * out.element_size());
      written += pending;
      pending = 0;
    }
  });
  store_row<double>(results, pending, out.scalar_type(), dst + written * out.element_size());
  return out;
}

}  // namespace kiln::portable
