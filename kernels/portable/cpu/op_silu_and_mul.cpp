// kiln::silu_and_mul.out: SwiGLU's gate, out = silu(x) * y for input [..., 2d] = [x, y] along
// the last dim, out [..., d] (vLLM's silu_and_mul).
#include "kernels/portable/cpu/util/llm/gated_activation.h"
#include "kernels/portable/cpu/util/vec/float_math.h"

namespace kiln::portable::native {
namespace {

KILN_MATH_LOOP void silu_chunk(const float* x, const float* y, float* out, int64_t n,
                               ScalarType type) {
  gated_chunk(x, y, out, n, type, [](float v) { return silu_float(v); });
}

KILN_MATH_LOOP void silu_bf16(const BFloat16* x, const BFloat16* y, BFloat16* out, int64_t n) {
  gated_bf16_row(x, y, out, n, [](float v) { return silu_float(v); });
}

}  // namespace

Tensor& silu_and_mul_out(KernelRuntimeContext& ctx, const Tensor& input, Tensor& out) {
  int64_t rows = 0;
  int64_t d = 0;
  if (!prepare_gated(ctx, input, out, "silu_and_mul", &rows, &d)) return out;
  const ScalarType type = input.scalar_type();
  run_gated(
      input, out, rows, d,
      [type](const float* x, const float* y, float* o, int64_t n) { silu_chunk(x, y, o, n, type); },
      silu_bf16);
  return out;
}

}  // namespace kiln::portable::native
