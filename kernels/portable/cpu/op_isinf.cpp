// isinf.out: whether each element of self is infinite, as Bool (integers never are).
#include <cmath>
#include <type_traits>

#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& isinf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return predicate_out(ctx, self, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return std::fabs(x) == static_cast<T>(INFINITY);
    } else {
      return false;
    }
  });
}

}  // namespace kiln::portable::native
