// ATen mode: argument checks and libtorch plumbing shared by the kernels of Kiln's LLM operators
// (custom_ops.yaml, namespace kiln), which compute with at:: calls what the portable kernels
// compute by hand. The checks refuse what the portable kernels refuse.
#pragma once

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <exception>

#include "runtime/core/tensor.h"
#include "runtime/kernel/aten/aten_bridge.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::aten_kernels {

// `tensor` is a Float, Half or BFloat16 tensor.
bool check_activation(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name);

// `tensor` has dtype `dtype`.
bool check_dtype(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                 c10::ScalarType dtype);

// `tensor` is an Int or Long tensor of `rank` dims.
bool check_index(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name, int64_t rank);

// `tensor` has `rank` dims and size `size` in dim 0 (size < 0: any).
bool check_rank(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name, int64_t rank,
                int64_t size = -1);

// out has dtype `dtype`; then resized to result's shape and given its values.
bool store(KernelRuntimeContext& ctx, const at::Tensor& result, Tensor& out);

// An RMS norm's input (at least one dim) and weight ([input.size(-1)], input's dtype).
bool check_norm(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight);

// A gated activation's input: an activation [..., 2 * d].
bool check_gated(KernelRuntimeContext& ctx, const Tensor& input);

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
