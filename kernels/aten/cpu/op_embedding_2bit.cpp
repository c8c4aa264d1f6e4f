// ATen mode: quantized_decomposed::embedding_2bit.out / .dtype_out (a 2-bit table, four codes per
// byte) with libtorch's ops (util/quantized_embedding.h), under the names custom_ops.yaml binds.
#include <optional>

#include "kernels/aten/cpu/util/quantized_embedding.h"

namespace kiln::portable::native {

Tensor& embedding_2bit_out(KernelRuntimeContext& ctx, const Tensor& weight,
                           const Tensor& weight_scales,
                           const std::optional<Tensor>& weight_zero_points,
                           int64_t weight_quant_min, int64_t weight_quant_max,
                           const Tensor& indices, Tensor& out) {
  aten_kernels::quantized_embedding(ctx, 2, weight, weight_scales, weight_zero_points,
                                    weight_quant_min, weight_quant_max, indices,
                                    embedding_out_dtype_of_scales(weight_scales), out);
  return out;
}

Tensor& embedding_2bit_dtype_out(KernelRuntimeContext& ctx, const Tensor& weight,
                                 const Tensor& weight_scales,
                                 const std::optional<Tensor>& weight_zero_points,
                                 int64_t weight_quant_min, int64_t weight_quant_max,
                                 const Tensor& indices, std::optional<ScalarType> dtype,
                                 Tensor& out) {
  aten_kernels::quantized_embedding(ctx, 2, weight, weight_scales, weight_zero_points,
                                    weight_quant_min, weight_quant_max, indices,
                                    embedding_out_dtype_argument(dtype), out);
  return out;
}

}  // namespace kiln::portable::native
