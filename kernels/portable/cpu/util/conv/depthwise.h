// Depthwise convolution (one input channel per group) computed directly, plane by plane.
//
// As a gemm, each group of a depthwise convolution is a 1-row product over its few taps: the
// packing and call overhead dwarf the arithmetic. The direct loop reads each input plane once
// into a zero-padded, stride-phased strip and accumulates every tap of a block of outputs in
// registers.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/conv/convolution.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Whether depthwise_convolution computes this (non-transposed) convolution: one input channel
// per group, Float or Double input, weight and out, a bias of the same dtype (or none), and
// padded rows that fit its stack strip.
bool depthwise_applies(const ConvShape& shape, ScalarType dtype, const std::optional<Tensor>& bias);

// out = convolution(input, weight, bias) for a shape depthwise_applies to; out is already
// sized. The taps of an output are summed in (kh, kw) order after the bias, on the context's
// thread pool one output plane per item, so the bits do not depend on the thread count. With
// `clamp` (a fused activation), results are clamped to it as they are stored.
void depthwise_convolution(const KernelRuntimeContext& ctx, const ConvShape& shape,
                           const Tensor& input, const Tensor& weight,
                           const std::optional<Tensor>& bias,
                           const KernelRuntimeContext::OutputClamp* clamp, Tensor& out);

}  // namespace kiln::portable
