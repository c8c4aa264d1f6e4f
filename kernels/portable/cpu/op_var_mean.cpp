// var_mean.correction_out: the variance (as var.correction_out) into out0 and the mean into out1,
// from one pass over each slice for the mean and one for the squared deviations.
#include <optional>
#include <tuple>

#include "kernels/portable/cpu/util/reduce/variance.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

std::tuple<Tensor&, Tensor&> var_mean_correction_out(KernelRuntimeContext& ctx, const Tensor& self,
                                                     std::optional<IntArrayRef> dim,
                                                     const std::optional<Scalar>& correction,
                                                     bool keepdim, Tensor& out0, Tensor& out1) {
  return var_mean(ctx, self, dim, correction, keepdim, out0, out1);
}

}  // namespace kiln::portable::native
