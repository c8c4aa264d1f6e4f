// What an Ascend host wrapper takes. Anything else it declines (Error::KernelDeclined, with the
// reason), and call_operator falls back to the portable kernel, which also owns every error
// message for invalid input: the Ascend wrappers take only inputs they run exactly.
#pragma once

#include <cstddef>

#include "kernels/ascend/common/host.h"
#include "kernels/ascend/common/tiling.h"
#include "runtime/core/tensor.h"

namespace kiln::ascend {

// Records KernelDeclined in ctx with the reason ("ascend: ..." after the op name); returns false.
bool decline(KernelRuntimeContext& ctx, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

// Declines because the portable kernel's argument check that ran on `checks` (a scratch context)
// refused the input, quoting its message: the portable kernel reports it to the caller.
bool refused(KernelRuntimeContext& ctx, const KernelRuntimeContext& checks);

// `dtype` as a device dtype when the kernel and the current device take it: Float and Half
// always, BFloat16 on SoCs that have it, Int32 when `int32_ok`.
bool accept_dtype(KernelRuntimeContext& ctx, ScalarType dtype, bool int32_ok,
                  DeviceDtype* device_dtype);

// `bytes` of the context's temp memory (32-byte aligned) for staging data on the host, or
// nullptr after declining "<what> without temp memory ...": the portable kernel needs none, so
// it serves rather than the call failing.
void* staging_memory(KernelRuntimeContext& ctx, size_t bytes, const char* what);

// `tensor` has `dtype` and the default dim order: what a kernel that takes it as a row view
// (dims after the first dense, dim 0 any stride: kernels/portable/cpu/util/llm/arguments.h,
// whose checks judge the rest) needs of it.
bool accept_row_view(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                     ScalarType dtype);

// `tensor` is in the default (contiguous) dim order and has `dtype`.
bool accept_tensor(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                   ScalarType dtype);

// No element of a Float, Half or BFloat16 `tensor`, dense or a row view, is inf or NaN (other
// dtypes: true).
bool all_finite(const Tensor& tensor);

// An input: accept_tensor (accept_row_view for one its kernel takes as a row view), and on a SoC
// whose vector unit saturates (Ascend310P: an inf result becomes the largest finite value, NaN
// becomes 0) no inf or NaN element, which the kernel could not carry through as torch does.
bool accept_input(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                  ScalarType dtype, bool row_view = false);

}  // namespace kiln::ascend
