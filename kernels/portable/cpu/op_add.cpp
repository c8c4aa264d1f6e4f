// add.out and add.Scalar_out: out = self + alpha * other. quantized_decomposed::add.out
// (ExecuTorch's quantized library): a + b on quantized tensors (util/quantized/add.h).
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "kernels/portable/cpu/util/quantized/add.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  return add_sub_out</*kSubtract=*/false>(ctx, self, other, alpha, out);
}

Tensor& add_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  return add_sub_out</*kSubtract=*/false>(ctx, self, other, alpha, out);
}

Tensor& quantized_add_out(KernelRuntimeContext& ctx, const Tensor& a, double a_scale,
                          int64_t a_zero_point, int64_t a_quant_min, int64_t a_quant_max,
                          const Tensor& b, double b_scale, int64_t b_zero_point,
                          int64_t b_quant_min, int64_t b_quant_max, double out_scale,
                          int64_t out_zero_point, int64_t out_quant_min, int64_t out_quant_max,
                          Tensor& out) {
  const QuantizedOperand a_params = {a_scale, a_zero_point, a_quant_min, a_quant_max};
  const QuantizedOperand b_params = {b_scale, b_zero_point, b_quant_min, b_quant_max};
  const QuantizedOperand out_params = {out_scale, out_zero_point, out_quant_min, out_quant_max};
  if (check_quantized_add_arguments(ctx, a, a_params, b, b_params, out_params, out) &&
      check_tensor(ctx, out, "out") && resize_or_fail(ctx, out, a.sizes())) {
    quantized_add(ctx, a, a_params, b, b_params, out_params, out);
  }
  return out;
}

}  // namespace kiln::portable::native
