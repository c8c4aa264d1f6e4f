// ExecuTorch's quantized add, portable: an elementwise loop per integer dtype over the context's
// threads.
#include "kernels/portable/cpu/util/quantized/add.h"

#include <cmath>

#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/target.h"

namespace kiln::portable {
namespace {

// The parameters as the loop uses them, by value so that stores to out cannot alias them:
// ExecuTorch's float scales and inverse, the zero points and the out range (exact as floats and
// doubles: all are in [0, 255]). The scales stay float members: GCC 12's SLP vectorizer drops
// the rounding of a double stored through float into a double member.
struct AddConstants {
  float a_scale, b_scale;
  double a_zero, b_zero;
  float inverse, out_zero, low, high;
};

// float((q - zero) * scale) as ExecuTorch forms it: the product in double (exact for the values
// of a quantized range), rounded once to float. The rounding to float also keeps the product out
// of a fused multiply-add with the sum that follows, which would round differently.
template <typename Q>
KILN_ALWAYS_INLINE float dequantize(Q q, double zero, float scale) {
  return static_cast<float>((static_cast<double>(q) - zero) * static_cast<double>(scale));
}

template <typename Q>
KILN_HOT_LOOP void add_run(const Q* a, const Q* b, Q* out, int64_t n, const AddConstants c) {
  for (int64_t i = 0; i < n; ++i) {
    const float sum = dequantize(a[i], c.a_zero, c.a_scale) + dequantize(b[i], c.b_zero, c.b_scale);
    float q = c.out_zero + std::nearbyint(c.inverse * sum);
    q = q >= c.low ? q : c.low;  // NaN (no comparison holds) lands on quant_min
    q = q <= c.high ? q : c.high;
    out[i] = static_cast<Q>(q);
  }
}

template <typename Q>
void add_tensors(const KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out,
                 const AddConstants& constants) {
  const Q* a_data = a.const_data_ptr<Q>();
  const Q* b_data = b.const_data_ptr<Q>();
  Q* out_data = out.mutable_data_ptr<Q>();
  parallel_for(
      ctx, 0, out.numel(), kElementwiseGrain,
      [&](int64_t first, int64_t last) {
        add_run(a_data + first, b_data + first, out_data + first, last - first, constants);
      },
      kParallelAlign);
}

}  // namespace

void quantized_add(const KernelRuntimeContext& ctx, const Tensor& a,
                   const QuantizedOperand& a_params, const Tensor& b,
                   const QuantizedOperand& b_params, const QuantizedOperand& out_params,
                   Tensor& out) {
  AddConstants constants;
  constants.a_scale = static_cast<float>(a_params.scale);
  constants.b_scale = static_cast<float>(b_params.scale);
  constants.a_zero = static_cast<double>(a_params.zero_point);
  constants.b_zero = static_cast<double>(b_params.zero_point);
  constants.inverse = 1.0f / static_cast<float>(out_params.scale);
  constants.out_zero = static_cast<float>(out_params.zero_point);
  constants.low = static_cast<float>(out_params.quant_min);
  constants.high = static_cast<float>(out_params.quant_max);
  switch (a.scalar_type()) {
    case ScalarType::Byte:
      return add_tensors<uint8_t>(ctx, a, b, out, constants);
    case ScalarType::Char:
      return add_tensors<int8_t>(ctx, a, b, out, constants);
    case ScalarType::Short:
      return add_tensors<int16_t>(ctx, a, b, out, constants);
    case ScalarType::Int:
      return add_tensors<int32_t>(ctx, a, b, out, constants);
    case ScalarType::Long:
      return add_tensors<int64_t>(ctx, a, b, out, constants);
    default:
      return;  // refused by check_quantized_add_arguments
  }
}

}  // namespace kiln::portable
