#include "runtime/executor/kernel_fallback.h"

#include <cstdio>

namespace kiln {

Error run_with_fallback(KernelRuntimeContext& ctx, const KernelCandidates& candidates,
                        Span<EValue*> stack, const KernelRuntimeContext::OutputClamp* clamp,
                        bool* temps_held, uint8_t* served, bool* clamp_taken) {
  char declined[sizeof(FallbackRecord::reason)] = "";
  for (uint8_t k = 0; k < candidates.count; ++k) {
    const Kernel& kernel = *candidates.kernels[k];
    // Offered to each kernel tried: one that declines may have taken it.
    if (clamp != nullptr) ctx.offer_output_clamp(*clamp);
    ctx.set_op_name(kernel.name);  // the generated wrappers set it too; prim operators do not
    const Error error = kernel.call(ctx, stack);
    // A call's temporaries last for the call only (as in ExecuTorch), unless a call of this run
    // returned tensors, which live there until the next run.
    if (kernel.return_slots != 0) *temps_held = true;
    if (!*temps_held) ctx.reset_temp();
    if (error != Error::KernelDeclined || k + 1 == candidates.count) {
      if (kernel.backend != candidates.first_backend) {
        record_fallback(kernel, candidates.first_backend, declined[0] ? declined : "no kernel");
      }
      *served = k;
      *clamp_taken = clamp != nullptr && ctx.output_clamp_taken();
      ctx.withdraw_output_clamp();
      return error;
    }
    std::snprintf(declined, sizeof(declined), "%s", ctx.failure_message());
    ctx.reset_failure();
  }
  return Error::OperatorMissing;  // not reached: callers refuse calls without kernels
}

}  // namespace kiln
