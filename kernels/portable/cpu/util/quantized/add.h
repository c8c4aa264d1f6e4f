// ExecuTorch's quantized add (quantized_decomposed::add.out): a and b dequantized with their
// affine parameters, added in float, and the sum quantized with out's, rounding where
// ExecuTorch's kernel rounds:
//
//   x    = float((q - zero_point) * float(scale))                          for a and for b
//   out  = clamp(out_zero_point + nearbyint(float(inv * (x_a + x_b))), out_quant_min,
//                out_quant_max),  inv = 1.0f / float(out_scale)
//
// nearbyint rounds ties to even; a NaN sum (from infinite scales) gives out_quant_min.
// The argument checks are inline, for the portable kernel and the ATen-mode one alike (in ATen
// mode kiln::Tensor is at::Tensor and only this header's inline part is used); quantized_add
// (add.cpp) is the portable computation.
#pragma once

#include <cstdint>
#include <cstdio>

#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/quantized/arguments.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// The affine parameters of one operand (a, b or out) of a quantized add.
struct QuantizedOperand {
  double scale;
  int64_t zero_point;
  int64_t quant_min;
  int64_t quant_max;
};

// ExecuTorch's dtypes for a quantized add: the integer ones.
inline bool is_quantized_add_dtype(ScalarType dtype) {
  return dtype == ScalarType::Byte || dtype == ScalarType::Char || dtype == ScalarType::Short ||
         dtype == ScalarType::Int || dtype == ScalarType::Long;
}

// `name`'s parameters (name: "a", "b" or "out"): a range inside [0, 255], ExecuTorch's bounds
// (uint8 values), and inside int8's for an int8 tensor, whose stores would otherwise wrap; a
// positive finite scale; a zero point inside the range.
inline bool check_quantized_operand(KernelRuntimeContext& ctx, const QuantizedOperand& operand,
                                    ScalarType dtype, const char* name) {
  const int64_t highest = dtype == ScalarType::Char ? 127 : 255;
  KILN_KERNEL_CHECK_MSG(
      ctx,
      0 <= operand.quant_min && operand.quant_min <= operand.quant_max &&
          operand.quant_max <= highest,
      InvalidArgument, false,
      "[%s_quant_min, %s_quant_max] = [%lld, %lld] is not a range inside [0, %lld], what a "
      "quantized add of %s tensors takes; pass 0 <= %s_quant_min <= %s_quant_max <= %lld",
      name, name, static_cast<long long>(operand.quant_min),
      static_cast<long long>(operand.quant_max), static_cast<long long>(highest),
      dtype == ScalarType::Char ? "Char (int8)" : "Byte (uint8)", name, name,
      static_cast<long long>(highest));
  char what[32];
  std::snprintf(what, sizeof(what), "%s_scale", name);
  if (!check_scale_value(ctx, operand.scale, what)) return false;
  std::snprintf(what, sizeof(what), "%s_zero_point", name);
  return check_zero_point_value(ctx, operand.zero_point, operand.quant_min, operand.quant_max,
                                what);
}

// quantized_decomposed::add.out: a and b of one integer dtype and one shape (no broadcasting),
// contiguous, their parameters and out's (check_quantized_operand), and out of their dtype.
inline bool check_quantized_add_arguments(KernelRuntimeContext& ctx, const Tensor& a,
                                          const QuantizedOperand& a_params, const Tensor& b,
                                          const QuantizedOperand& b_params,
                                          const QuantizedOperand& out_params, const Tensor& out) {
  const ScalarType dtype = a.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, is_quantized_add_dtype(dtype), InvalidType, false,
                        "a has dtype %s; pass a quantized tensor of an integer dtype (uint8, "
                        "int8, int16, int32 or int64)",
                        to_string(dtype));
  return check_contiguous(ctx, a, "a") && check_contiguous(ctx, b, "b") &&
         check_dtype_matches(ctx, b, "b", dtype, "a") && check_same_shape(ctx, b, "b", a, "a") &&
         check_dtype_matches(ctx, out, "out", dtype, "a") &&
         check_quantized_operand(ctx, a_params, dtype, "a") &&
         check_quantized_operand(ctx, b_params, dtype, "b") &&
         check_quantized_operand(ctx, out_params, dtype, "out");
}

// out (a's shape and dtype, resized by the caller) = a + b as described above. The arguments
// are checked.
void quantized_add(const KernelRuntimeContext& ctx, const Tensor& a,
                   const QuantizedOperand& a_params, const Tensor& b,
                   const QuantizedOperand& b_params, const QuantizedOperand& out_params,
                   Tensor& out);

}  // namespace kiln::portable
