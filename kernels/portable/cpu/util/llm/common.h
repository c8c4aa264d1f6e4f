// Shared pieces of Kiln's LLM-serving operators (custom_ops.yaml, namespace kiln): argument
// checks with vLLM's shape rules, and float row loops the kernels compose.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/util/common/target.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Pairs of values per chunk the LLM kernels convert through float buffers on the stack.
constexpr int64_t kLlmChunk = 256;

// `tensor` is a contiguous Float, Half or BFloat16 tensor (the activation dtypes vLLM serves).
bool check_activation(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name);

// `tensor` has dtype `dtype`, the one of `other_name`.
bool check_dtype_matches(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                         ScalarType dtype, const char* other_name);

// `tensor` has `rank` dims (and is contiguous).
bool check_rank(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name, int64_t rank);

// `tensor` is a contiguous Int or Long tensor of `rank` dims (index tensors: positions, slots,
// block tables, lengths).
bool check_index_tensor(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                        int64_t rank);

// `tensor` is a contiguous tensor of exactly dtype `dtype` and rank `rank` (vLLM's fixed index
// dtypes, as advance_step_flashattn takes them).
bool check_index_dtype(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                       ScalarType dtype, int64_t rank);

// Size `dim` of `tensor` is `expected`; the message names `what` the size stands for.
bool check_size(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name, int64_t dim,
                int64_t expected, const char* what);

// An RMS norm's input (an activation of at least one dim) and weight (its last dim's size, its
// dtype); sets *n to that size and *rows to the number of rows.
bool check_norm_arguments(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                          int64_t* rows, int64_t* n);

// Element `index` of an Int or Long tensor.
inline int64_t index_at(const Tensor& tensor, int64_t index) {
  return tensor.scalar_type() == ScalarType::Long ? tensor.const_data_ptr<int64_t>()[index]
                                                  : tensor.const_data_ptr<int32_t>()[index];
}

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
