// Sum, product and mean reductions: the shared body of sum, prod and mean (and their out checks).
#pragma once

#include <optional>

#include "kernels/portable/cpu/util/reduce/plan.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

enum class AccumulateKind : uint8_t { kSum, kProd, kMean };

// Reduces `self` over `mask` into `out` (already resized to the reduced shape): every element is
// first converted to `op_type` (the op's dtype, as ATen casts its input), then summed or
// multiplied (in double for floating types, wrapping int64 for the others), divided by the
// element count for kMean, and stored in out's dtype. An empty reduction gives 0 (sum), 1 (prod)
// or NaN (mean). Outputs are split over ctx's threads (each output summed by one thread, in
// the same order on any number of threads).
void accumulate_reduce(const KernelRuntimeContext& ctx, const Tensor& self, DimMask mask,
                       ScalarType op_type, AccumulateKind kind, Tensor& out);

// The whole out variant of sum/prod/mean over `dims` (None or empty: every dim): checks, the op
// dtype rules of ATen (`dtype` if given, else out's dtype; mean needs a floating dtype), resize,
// reduce. Returns out.
Tensor& accumulate_out(KernelRuntimeContext& ctx, const Tensor& self,
                       std::optional<IntArrayRef> dims, bool keepdim,
                       std::optional<ScalarType> dtype, AccumulateKind kind, Tensor& out);

}  // namespace kiln::portable
