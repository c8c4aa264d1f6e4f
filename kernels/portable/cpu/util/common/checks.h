// Argument checks shared by the portable kernels; each reports through ctx.fail with a fix.
//
// Every check returns true when the argument is fine; otherwise it has called ctx.fail and the
// kernel should return `out` untouched.
#pragma once

#include <cstdint>
#include <optional>

#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/core/tensor_options.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// "[2, 3]": a shape rendered for messages, held by value.
struct ShapeText {
  char text[128];
};
ShapeText format_shape(ArrayRef<SizesType> sizes);

// "2", "1.5" or "True": a Scalar rendered for messages.
struct ScalarText {
  char text[32];
};
ScalarText format_scalar(const Scalar& scalar);

// `tensor` (called `name` in messages) uses the default (contiguous) dim order.
bool check_default_dim_order(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name);

// `dtype` is one of the ten dtypes the portable kernels compute on.
bool check_supported_dtype(KernelRuntimeContext& ctx, ScalarType dtype, const char* name);

// Both of the above for a tensor argument.
bool check_tensor(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name);

// A requested memory format fits `self`: channels_last needs rank 4, channels_last_3d rank 5.
// The values are the same in any layout, so that is all a copy must check.
bool check_memory_format(KernelRuntimeContext& ctx, std::optional<MemoryFormat> memory_format,
                         const Tensor& self);

// The out tensor has exactly the dtype the op produces (ops whose out variant copies a result).
bool check_out_dtype_is(KernelRuntimeContext& ctx, const Tensor& out, ScalarType expected);

// The out tensor's bytes do not overlap `input`'s: a product cannot be written over its own
// factors (torch's result is then undefined: zeros on some CPUs, the product on others).
bool check_out_apart(KernelRuntimeContext& ctx, const Tensor& out, const Tensor& input,
                     const char* name);

// The out tensor can hold a `result` dtype value without a lossy category change (torch.can_cast).
bool check_out_dtype_castable(KernelRuntimeContext& ctx, const Tensor& out, ScalarType result);

// Wraps a possibly negative dim into [0, rank) for a tensor of rank `rank` (a 0-dim tensor
// accepts 0 and -1, as ATen does).
bool wrap_dim(KernelRuntimeContext& ctx, int64_t dim, int64_t rank, int64_t* wrapped);

// wrap_dim for an op that takes part of one dim of a tensor (`op`: "select", "slice",
// "narrow"), which a 0-dim tensor does not have.
bool wrap_sliced_dim(KernelRuntimeContext& ctx, const char* op, int64_t dim, int64_t rank,
                     int64_t* wrapped);

// A shape argument (called `name` in messages) of `rank` dims fits a tensor: at most
// kTensorDimensionLimit dims.
bool check_rank_limit(KernelRuntimeContext& ctx, size_t rank, const char* name);

}  // namespace kiln::portable
