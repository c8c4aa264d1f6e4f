// quantized_decomposed::embedding_2bit.out / .dtype_out (ExecuTorch's quantized library): rows of a
// 2-bit quantized embedding table (a Byte tensor, four codes per byte, low bits first), gathered at
// indices and dequantized with a scale, and optionally a zero point, per row or per group of a row
// (util/quantized/embedding.h). .out returns weight_scales' dtype, .dtype_out its dtype argument.
#include <optional>

#include "kernels/portable/cpu/util/quantized/embedding.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& embedding_2bit_out(KernelRuntimeContext& ctx, const Tensor& weight,
                           const Tensor& weight_scales,
                           const std::optional<Tensor>& weight_zero_points,
                           int64_t weight_quant_min, int64_t weight_quant_max,
                           const Tensor& indices, Tensor& out) {
  quantized_embedding(ctx, 2, weight, weight_scales, weight_zero_points, weight_quant_min,
                      weight_quant_max, indices, embedding_out_dtype_of_scales(weight_scales), out);
  return out;
}

Tensor& embedding_2bit_dtype_out(KernelRuntimeContext& ctx, const Tensor& weight,
                                 const Tensor& weight_scales,
                                 const std::optional<Tensor>& weight_zero_points,
                                 int64_t weight_quant_min, int64_t weight_quant_max,
                                 const Tensor& indices, std::optional<ScalarType> dtype,
                                 Tensor& out) {
  quantized_embedding(ctx, 2, weight, weight_scales, weight_zero_points, weight_quant_min,
                      weight_quant_max, indices, embedding_out_dtype_argument(dtype), out);
  return out;
}

}  // namespace kiln::portable::native
