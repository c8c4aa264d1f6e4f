// The gated activations of kiln::silu_and_mul and kiln::gelu_and_mul: input [..., 2d] holds x
// then y along the last dim, out [..., d] = act(x) * y, as vLLM computes it: act in float,
// rounded to the input's dtype, then the product rounded again (exact for Float).
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/llm.h"
#include "kernels/portable/cpu/util/target.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Checks input and out and resizes out to [..., d]; sets *rows and *d. `op` names the operator.
bool prepare_gated(KernelRuntimeContext& ctx, const Tensor& input, Tensor& out, const char* op,
                   int64_t* rows, int64_t* d);

// out[i] = act(x[i]) (then rounded to `type` unless it is Float) * y[i], i < n.
template <typename Act>
KILN_ALWAYS_INLINE void gated_chunk(const float* x, const float* y, float* out, int64_t n,
                                    ScalarType type, Act act) {
  for (int64_t i = 0; i < n; ++i) out[i] = act(x[i]);
  if (type != ScalarType::Float) round_floats(out, n, type);
  for (int64_t i = 0; i < n; ++i) out[i] *= y[i];
}

// Runs `chunk(x, y, out, n)` (gated_chunk with the op's activation, in a KILN_MATH_LOOP
// function) over every row of input, through float buffers for Half and BFloat16.
template <typename Chunk>
void run_gated(const Tensor& input, Tensor& out, int64_t rows, int64_t d, Chunk chunk) {
  const ScalarType type = input.scalar_type();
  const size_t size = element_size(type);
  const char* src = static_cast<const char*>(input.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  float xb[kLlmChunk];
  float yb[kLlmChunk];
  float ob[kLlmChunk];
  for (int64_t r = 0; r < rows; ++r) {
    const char* x = src + 2 * r * d * size;
    const char* y = x + d * size;
    char* o = dst + r * d * size;
    if (type == ScalarType::Float) {
      chunk(reinterpret_cast<const float*>(x), reinterpret_cast<const float*>(y),
            reinterpret_cast<float*>(o), d);
      continue;
    }
    for (int64_t start = 0; start < d; start += kLlmChunk) {
      const int64_t m = d - start < kLlmChunk ? d - start : kLlmChunk;
      load_floats(x + start * size, type, 1, m, xb);
      load_floats(y + start * size, type, 1, m, yb);
      chunk(xb, yb, ob, m);
      store_floats(ob, m, type, o + start * size);
    }
  }
}

}  // namespace kiln::portable
