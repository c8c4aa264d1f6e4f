// Load-time fusion (docs/programs.md, "Fusion at load"): what Method::load fuses, as pure
// functions of an instruction's operator and arguments. Method::load decides where they apply
// (who reads and writes the values, where the plan puts their bytes).
#pragma once

#include <cstddef>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln {

// An elementwise activation a kernel can apply to its results as it stores them
// (KernelRuntimeContext::offer_output_clamp).
struct ActivationCall {
  KernelRuntimeContext::OutputClamp clamp;
  size_t self;  // the position of its input among the call's arguments
  size_t out;   // the position of its out
};

// Whether kernel call `op` with `arguments` (the schema's arguments, without the program's
// trailing return slot) is aten::relu.out, aten::hardtanh.out or aten::clamp.out, and the clamp
// that equals it on Float and Double values: relu is [0, +inf]; hardtanh and clamp take their
// bounds (clamp's missing one infinite). False for anything else, and for bounds a clamp of the
// stored values would not reproduce bit for bit: NaN, min > max (ATen then returns max), or an
// integer bound beyond 2^53 (converted to float through double, it could round differently).
// The scalars' values are read now: the caller checks that no instruction writes them.
bool activation_of(const char* op, Span<EValue*> arguments, ActivationCall* call);

// A convolution's weight and bias with an inference batch norm folded in: for output channel c,
// s = gamma[c] / sqrt(var[c] + eps), weight'[c] = weight[c] * s and
// bias'[c] = (bias[c] - mean[c]) * s + beta[c] (gamma 1, beta and bias 0 when absent), computed in
// double and rounded once to the dtype.
struct BatchNormFold {
  const Tensor* weight;  // [out_channels, ...], dim order starting with dim 0
  const Tensor* bias;    // [out_channels] or nullptr
  const Tensor* gamma;   // [out_channels] or nullptr
  const Tensor* beta;    // [out_channels] or nullptr
  const Tensor* mean;    // [out_channels]
  const Tensor* var;     // [out_channels]
  double eps;
};

// Whether `fold` can be computed: every tensor Float, or every one Double, the weight at least
// 2-D with its out channels outermost in memory, and each per-channel tensor 1-D of that many.
bool batch_norm_folds(const BatchNormFold& fold);

// Writes weight' (the weight's nbytes) and bias' (out_channels elements) for a `fold`
// batch_norm_folds accepted.
void fold_batch_norm(const BatchNormFold& fold, void* weight_out, void* bias_out);

}  // namespace kiln
