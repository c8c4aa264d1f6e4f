// ATen mode: libtorch plumbing shared by the kernels of Kiln's LLM operators (custom_ops.yaml,
// namespace kiln), which compute with at:: calls what the portable kernels compute by hand.
// Their argument checks are the portable kernels' own (kernels/portable/cpu/util/llm/
// arguments.h), so both refuse the same inputs with the same messages.
#pragma once

#include <cstdint>
#include <exception>

#include "kernels/portable/cpu/util/llm/arguments.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/aten/aten_bridge.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::aten_kernels {

// out has dtype `dtype`; then resized to result's shape and given its values.
bool store(KernelRuntimeContext& ctx, const at::Tensor& result, Tensor& out);

// vLLM's RMSNorm: the mean square in float, x * rstd rounded to x's dtype, then * weight.
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);

// Runs `f`, turning a libtorch exception into a failure of `ctx`; false then.
template <typename F>
bool run_aten(KernelRuntimeContext& ctx, F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& error) {
    aten_bridge::fail_from_exception(ctx, error);
    return false;
  }
}

}  // namespace kiln::aten_kernels
