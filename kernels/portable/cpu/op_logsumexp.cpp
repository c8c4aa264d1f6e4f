// logsumexp.out: log(sum(exp(x))) over dims, computed as max + log(sum(exp(x - max))).
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/reduce/plan.h"
#include "kernels/portable/cpu/util/reduce/row_loops.h"
#include "kernels/portable/cpu/util/reduce/runs.h"

namespace kiln::portable::native {
namespace {

// The loops pick their own vector width at run time (reduce/row_loops.h).
template <typename C>
C run_max(const C* x, int64_t n, C start) {
  return extreme_nan<C, true>(x, n, start);
}

template <typename C>
KILN_NOINLINE C run_exp_sum(const C* x, int64_t n, C shift) {
  return exp_sum_lanes(x, static_cast<C*>(nullptr), n, shift);
}

// Each output in two passes over its runs: the max (NaN winning), then the sum of exps shifted by
// it (by 0 when the max is infinite, as ATen does, so all -inf gives -inf and +inf gives +inf).
template <typename C>
void logsumexp_typed(const Tensor& self, const ReduceLayout& layout, Tensor& out) {
  RunReader<C> reader(self, layout, /*in_place=*/true);
  store_outputs<C>(layout, out, [&](int64_t base) {
    C max = -INFINITY;
    reader.visit(base, [&](const C* x, int64_t n) { max = run_max(x, n, max); });
    // ATen shifts by 0 when the max is infinite: all -inf gives log(0) = -inf, and a +inf
    // (without NaN) gives +inf, which needs no second pass.
    const C shift = std::isinf(max) ? C(0) : max;
    C sum = 0;
    if (max != C(INFINITY)) {
      reader.visit(base, [&](const C* x, int64_t n) { sum += run_exp_sum(x, n, shift); });
    }
    return max == C(INFINITY) ? max : std::log(sum) + shift;
  });
}

}  // namespace

Tensor& logsumexp_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                      Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(out.scalar_type()), InvalidArgument, out,
                        "logsumexp(): Expected floating point type for result tensor, but got: "
                        "%s; pass a floating out tensor",
                        to_string(out.scalar_type()));
  // ATen reduces every dim for an empty list but then cannot fit the result into the
  // keepdim=False shape.
  KILN_KERNEL_CHECK_MSG(ctx, !dim.empty() || keepdim || self.dim() == 0 || self.numel() == 0,
                        InvalidArgument, out,
                        "output with shape [] doesn't match the broadcast shape of the kept "
                        "dims; pass the dims to reduce, or keepdim=True");
  DimMask mask = 0;
  if (!make_dim_mask(ctx, dim, self.dim(), &mask)) return out;
  if (!resize_reduced(ctx, self, mask, keepdim, out)) return out;
  if (out.numel() == 0) return out;
  ReduceLayout layout;
  make_reduce_layout(self.sizes(), mask, &layout);
  // Integers compute in float (the default dtype); floating inputs in their compute type.
  const ScalarType in_type = self.scalar_type();
  const bool wide = in_type == ScalarType::Double;
  if (wide) {
    logsumexp_typed<double>(self, layout, out);
  } else {
    logsumexp_typed<float>(self, layout, out);
  }
  return out;
}

}  // namespace kiln::portable::native
