// The gated activations of kiln::silu_and_mul and kiln::gelu_and_mul: input [..., 2d] holds x
// then y along the last dim, out [..., d] = act(x) * y, as vLLM computes it: act in float,
// rounded to the input's dtype, then the product rounded again (exact for Float).
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Checks input and out (row views, see arguments.h) and resizes out to [..., d]; sets *rows and
// *d. `op` names the operator.
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

// The same for one BFloat16 row, converting in the loop itself (bit shifts, unlike Half's
// conversions): one pass instead of five over float buffers.
template <typename Act>
KILN_ALWAYS_INLINE void gated_bf16_row(const BFloat16* x, const BFloat16* y, BFloat16* out,
                                       int64_t n, Act act) {
  using kiln::detail::bfloat16_bits_to_float;
  using kiln::detail::float_to_bfloat16_bits;
  for (int64_t i = 0; i < n; ++i) {
    const float a =
        bfloat16_bits_to_float(float_to_bfloat16_bits(act(bfloat16_bits_to_float(x[i].x))));
    out[i] = BFloat16::from_bits(float_to_bfloat16_bits(a * bfloat16_bits_to_float(y[i].x)));
  }
}

// Runs `chunk(x, y, out, n)` (gated_chunk with the op's activation, in a KILN_MATH_LOOP
// function) over every row of input, through float buffers for Half; BFloat16 rows go to
// `bf16_row(x, y, out, n)` (gated_bf16_row, likewise). Input and out may be row views.
template <typename Chunk, typename Bf16Row>
void run_gated(const Tensor& input, Tensor& out, int64_t rows, int64_t d, Chunk chunk,
               Bf16Row bf16_row) {
  const ScalarType type = input.scalar_type();
  const size_t size = element_size(type);
  const char* src = static_cast<const char*>(input.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  const RowView in_rows = row_view(input);
  const RowView out_rows = row_view(out);
  float xb[kLlmChunk];
  float yb[kLlmChunk];
  float ob[kLlmChunk];
  for (int64_t r = 0; r < rows; ++r) {
    const char* x = src + in_rows.offset(r, 2 * d) * size;
    const char* y = x + d * size;
    char* o = dst + out_rows.offset(r, d) * size;
    if (type == ScalarType::Float) {
      chunk(reinterpret_cast<const float*>(x), reinterpret_cast<const float*>(y),
            reinterpret_cast<float*>(o), d);
      continue;
    }
    if (type == ScalarType::BFloat16) {
      bf16_row(reinterpret_cast<const BFloat16*>(x), reinterpret_cast<const BFloat16*>(y),
               reinterpret_cast<BFloat16*>(o), d);
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
