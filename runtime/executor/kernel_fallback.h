// Runs one call on its kernels in backend preference order, falling back when a kernel declines
// the inputs: shared by Method's kernel calls and the delegates that run Kiln's kernels.
#pragma once

#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernel/backend.h"
#include "runtime/kernel/kernel_runtime_context.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln {

struct KernelCandidates {
  const Kernel* const* kernels;  // one per backend that has one, in preference order
  uint8_t count;                 // at least 1
  Backend first_backend;         // the preference list's first: serving from another is counted
};

// Calls the first kernel; when it declines (KernelDeclined) the next one runs and the fallback
// is recorded with the decline's message, as kiln.call_op does. `clamp`, when not null, is
// offered to each kernel tried (activation fusion); *clamp_taken says whether the one that
// served took it. A call's temporaries are released after it unless *temps_held is set, which a
// kernel returning tensors (kept in temp memory until the run ends) sets. *served is the index
// of the kernel that ran. Returns that kernel's Error; its failure state stays in `ctx`.
Error run_with_fallback(KernelRuntimeContext& ctx, const KernelCandidates& candidates,
                        Span<EValue*> stack, const KernelRuntimeContext::OutputClamp* clamp,
                        bool* temps_held, uint8_t* served, bool* clamp_taken);

}  // namespace kiln
