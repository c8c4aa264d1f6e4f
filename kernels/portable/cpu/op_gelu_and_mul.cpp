// kiln::gelu_and_mul.out: GeGLU's gate, out = gelu(x) * y for input [..., 2d] = [x, y] along the
// last dim, out [..., d]; approximate "none" is exact gelu (vLLM's gelu_and_mul), "tanh" the tanh
// approximation (vLLM's gelu_tanh_and_mul).
#include <string_view>

#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/gated_activation.h"
#include "kernels/portable/cpu/util/vec/float_math.h"

namespace kiln::portable::native {
namespace {

// x Phi(x), with Phi computed without cancelling for x < 0.
KILN_ALWAYS_INLINE float gelu_exact(float v) { return v * normal_cdf_float(v); }

// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
KILN_ALWAYS_INLINE float gelu_tanh(float v) {
  const float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
  return 0.5f * v * (1.0f + tanh_float(inner));
}

KILN_MATH_LOOP void gelu_chunk(const float* x, const float* y, float* out, int64_t n,
                               ScalarType type) {
  gated_chunk(x, y, out, n, type, [](float v) { return gelu_exact(v); });
}

KILN_MATH_LOOP void gelu_tanh_chunk(const float* x, const float* y, float* out, int64_t n,
                                    ScalarType type) {
  gated_chunk(x, y, out, n, type, [](float v) { return gelu_tanh(v); });
}

KILN_MATH_LOOP void gelu_bf16(const BFloat16* x, const BFloat16* y, BFloat16* out, int64_t n) {
  gated_bf16_row(x, y, out, n, [](float v) { return gelu_exact(v); });
}

KILN_MATH_LOOP void gelu_tanh_bf16(const BFloat16* x, const BFloat16* y, BFloat16* out, int64_t n) {
  gated_bf16_row(x, y, out, n, [](float v) { return gelu_tanh(v); });
}

}  // namespace

Tensor& gelu_and_mul_out(KernelRuntimeContext& ctx, const Tensor& input,
                         std::string_view approximate, Tensor& out) {
  bool tanh = false;
  int64_t rows = 0;
  int64_t d = 0;
  if (!check_gelu_approximate(ctx, approximate, &tanh) ||
      !prepare_gated(ctx, input, out, "gelu_and_mul", &rows, &d)) {
    return out;
  }
  const ScalarType type = input.scalar_type();
  run_gated(
      input, out, rows, d,
      [type, tanh](const float* x, const float* y, float* o, int64_t n) {
        if (tanh) {
          gelu_tanh_chunk(x, y, o, n, type);
        } else {
          gelu_chunk(x, y, o, n, type);
        }
      },
      tanh ? gelu_tanh_bf16 : gelu_bf16);
  return out;
}

}  // namespace kiln::portable::native
