// The argument checks of ExecuTorch's mixed-dtype matmuls (quantized_decomposed::mixed_mm.out and
// mixed_linear.out, custom_ops.yaml): a Float or Half activation times an int8 weight with
// scales, and optionally zero points, of the activation's dtype. Written once for the portable
// kernels and the ATen-mode ones (kernels/aten/cpu), so both refuse the same inputs with the same
// messages: header-only, over what kiln::Tensor offers in both builds (in ATen mode it is
// at::Tensor). Each check returns true when the arguments are fine; otherwise it has called
// ctx.fail and the kernel returns.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/llm/arguments.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// A Float or Half dtype: the activations, scales and outs ExecuTorch's kernels compute with.
inline bool is_mixed_float(ScalarType dtype) {
  return dtype == ScalarType::Float || dtype == ScalarType::Half;
}

// input: a contiguous 2-dim Float or Half tensor; weight: a contiguous 2-dim int8 tensor.
inline bool check_mixed_operands(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& weight) {
  KILN_KERNEL_CHECK_MSG(ctx, is_mixed_float(input.scalar_type()), InvalidType, false,
                        "input has dtype %s; pass a Float or Half tensor",
                        to_string(input.scalar_type()));
  return check_rank(ctx, input, "input", 2) &&
         check_index_dtype(ctx, weight, "weight", ScalarType::Char, 2);
}

// weight_scales has the input's dtype, and weight_zero_points (optional) its dtype and shape.
inline bool check_mixed_qparams(KernelRuntimeContext& ctx, const Tensor& scales,
                                const std::optional<Tensor>& zero_points, ScalarType dtype) {
  return check_dtype_matches(ctx, scales, "weight_scales", dtype, "input") &&
         check_contiguous(ctx, scales, "weight_scales") &&
         (!zero_points.has_value() ||
          (check_dtype_matches(ctx, *zero_points, "weight_zero_points", dtype, "input") &&
           check_contiguous(ctx, *zero_points, "weight_zero_points") &&
           check_same_shape(ctx, *zero_points, "weight_zero_points", scales, "weight_scales")));
}

// quantized_decomposed::mixed_mm.out: input [m, k] times weight [k, n], whose row p is scaled by
// weight_scales[p] (and offset by weight_zero_points[p]); out has the input's dtype.
inline bool check_mixed_mm_arguments(KernelRuntimeContext& ctx, const Tensor& input,
                                     const Tensor& weight, const Tensor& scales,
                                     const std::optional<Tensor>& zero_points, const Tensor& out) {
  if (!check_mixed_operands(ctx, input, weight)) return false;
  KILN_KERNEL_CHECK_MSG(ctx, weight.size(0) == input.size(1), InvalidArgument, false,
                        "input has shape %s but weight has shape %s ([k, n]); pass a weight of "
                        "%lld rows",
                        sizes_text(input).text, sizes_text(weight).text,
                        static_cast<long long>(input.size(1)));
  const int64_t k = weight.size(0);
  KILN_KERNEL_CHECK_MSG(ctx, scales.dim() == 1 && scales.size(0) == k, InvalidArgument, false,
                        "weight_scales has shape %s; pass shape [%lld], a scale per row of weight",
                        sizes_text(scales).text, static_cast<long long>(k));
  return check_mixed_qparams(ctx, scales, zero_points, input.scalar_type()) &&
         check_dtype_matches(ctx, out, "out", input.scalar_type(), "input");
}

// How mixed_linear's scales group the columns of a weight row: `groups` runs of `group_size`
// columns (the last may be shorter); one group of all k columns for per-channel scales.
struct ScaleGroups {
  int64_t groups;
  int64_t group_size;
};

// mixed_linear's weight_scales of shape [n, groups]: ExecuTorch takes groups of ceil(k / groups)
// columns and finds group g's scale at g of rows ceil(k / group_size) long, which is `groups`
// only when every group holds a column; other counts would read the wrong scales.
inline bool check_scale_groups(KernelRuntimeContext& ctx, const Tensor& scales, int64_t k,
                               ScaleGroups* layout) {
  const int64_t groups = scales.size(1);
  const int64_t group_size = groups > 0 ? (k + groups - 1) / groups : 0;
  const bool fits = k == 0 || (group_size > 0 && (k + group_size - 1) / group_size == groups);
  KILN_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, false,
                        "weight_scales has shape %s: %lld groups of ceil(%lld / %lld) columns do "
                        "not split weight's %lld columns into %lld non-empty groups; pass a group "
                        "count such as a divisor of %lld",
                        sizes_text(scales).text, static_cast<long long>(groups),
                        static_cast<long long>(k), static_cast<long long>(groups),
                        static_cast<long long>(k), static_cast<long long>(groups),
                        static_cast<long long>(k));
  *layout = {groups, group_size};
  return true;
}

// out's dtype for mixed_linear: `dtype` when given (Float or Half, and out must have it), else
// out's own, Float, Half or Double (ExecuTorch's choice of outs).
inline bool check_mixed_linear_out(KernelRuntimeContext& ctx, std::optional<ScalarType> dtype,
                                   const Tensor& out) {
  const ScalarType type = out.scalar_type();
  if (dtype.has_value()) {
    KILN_KERNEL_CHECK_MSG(ctx, is_mixed_float(*dtype), InvalidType, false,
                          "dtype is %s; pass torch.float32 or torch.float16 (or None for out's "
                          "dtype)",
                          to_string(*dtype));
    KILN_KERNEL_CHECK_MSG(ctx, type == *dtype, InvalidType, false,
                          "out has dtype %s but dtype is %s; pass out of dtype %s", to_string(type),
                          to_string(*dtype), to_string(*dtype));
  }
  KILN_KERNEL_CHECK_MSG(ctx, is_mixed_float(type) || type == ScalarType::Double, InvalidType, false,
                        "out has dtype %s; pass a Float, Half or Double out", to_string(type));
  return true;
}

// quantized_decomposed::mixed_linear.out: input [m, k] times the transpose of weight [n, k],
// whose row j is scaled by weight_scales[j] ([n]) or by weight_scales[j][g] in column group g
// ([n, groups]), and offset likewise by weight_zero_points; sets the groups.
inline bool check_mixed_linear_arguments(KernelRuntimeContext& ctx, const Tensor& input,
                                         const Tensor& weight, const Tensor& scales,
                                         const std::optional<Tensor>& zero_points,
                                         std::optional<ScalarType> dtype, const Tensor& out,
                                         ScaleGroups* layout) {
  if (!check_mixed_operands(ctx, input, weight)) return false;
  const int64_t k = weight.size(1);
  KILN_KERNEL_CHECK_MSG(ctx, input.size(1) == k, InvalidArgument, false,
                        "input has shape %s but weight has shape %s ([n, k]); pass input of "
                        "shape [m, %lld]",
                        sizes_text(input).text, sizes_text(weight).text, static_cast<long long>(k));
  const int64_t n = weight.size(0);
  KILN_KERNEL_CHECK_MSG(
      ctx, (scales.dim() == 1 || scales.dim() == 2) && scales.size(0) == n, InvalidArgument, false,
      "weight_scales has shape %s; pass shape [%lld] (a scale per row of "
      "weight) or [%lld, groups] (a scale per group of a row's columns)",
      sizes_text(scales).text, static_cast<long long>(n), static_cast<long long>(n));
  if (!check_mixed_qparams(ctx, scales, zero_points, input.scalar_type()) ||
      !check_mixed_linear_out(ctx, dtype, out)) {
    return false;
  }
  *layout = {1, k};
  return scales.dim() == 1 || check_scale_groups(ctx, scales, k, layout);
}

}  // namespace kiln::portable
