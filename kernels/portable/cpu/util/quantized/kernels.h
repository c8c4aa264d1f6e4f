// The portable kernels' common steps for ExecuTorch's (de)quantize operators: check, size out
// like input, and run util/quantized/affine.h's loop. Each op_<name>.cpp adds only how its
// parameters are given and grouped.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/quantized/affine.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Quantizes `input` into `out` with `params` grouped as `blocks`: out gets input's shape and
// dtype `dtype`. The arguments specific to the operator are checked already.
void run_quantize(KernelRuntimeContext& ctx, const Tensor& input, const AffineParams& params,
                  AffineBlocks blocks, int64_t quant_min, int64_t quant_max, ScalarType dtype,
                  Tensor& out);

// Dequantizes `input` (dtype `dtype`) into `out` (floating, out_dtype when given).
void run_dequantize(KernelRuntimeContext& ctx, const Tensor& input, const AffineParams& params,
                    AffineBlocks blocks, int64_t quant_min, int64_t quant_max, ScalarType dtype,
                    std::optional<ScalarType> out_dtype, Tensor& out);

// The parameters of a per-tensor operator, given as numbers or as one-element tensors (the
// .Tensor_out overloads, checked by check_per_tensor_tensors).
AffineParams per_tensor_params(double scale, int64_t zero_point);
AffineParams per_tensor_params(const Tensor& scale, const Tensor& zero_point);

}  // namespace kiln::portable
