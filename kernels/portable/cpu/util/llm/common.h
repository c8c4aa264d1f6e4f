// Shared pieces of Kiln's LLM-serving operators (custom_ops.yaml, namespace kiln): float row
// loops the kernels compose. Their argument checks, shared with the ATen-mode kernels, are in
// arguments.h.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/util/common/target.h"
#include "runtime/core/scalar_type.h"

namespace kiln::portable {

// Pairs of values per chunk the LLM kernels convert through float buffers on the stack.
constexpr int64_t kLlmChunk = 256;

// Rows of a Float, Half or BFloat16 tensor as floats and back: vec/convert.h's load_row / store_row
// / round_row for these three dtypes (its vectorised 16-bit rows). `stride` is in elements.
void load_floats(const void* src, ScalarType type, int64_t stride, int64_t n, float* dst);
void store_floats(const float* src, int64_t n, ScalarType type, void* dst);
// Rounds each value to `type`'s precision, keeping it in float (nothing to do for Float).
void round_floats(float* values, int64_t n, ScalarType type);

// sum(x[i]^2) in float, in vector lanes.
float sum_of_squares(const float* x, int64_t n);

// y[i] = x[i] * scale.
void scale_row(const float* x, float scale, float* y, int64_t n);

// y[i] = a[i] * b[i].
void multiply_rows(const float* a, const float* b, float* y, int64_t n);

// y[i] = a[i] + b[i].
void add_rows(const float* a, const float* b, float* y, int64_t n);

// sum(a[i] * b[i]) in float, in vector lanes.
float dot_row(const float* a, const float* b, int64_t n);

// y[i] += scale * x[i].
void axpy_row(float scale, const float* x, float* y, int64_t n);

}  // namespace kiln::portable
