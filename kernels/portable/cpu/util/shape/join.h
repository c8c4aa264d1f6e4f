// cat and stack: tensors joined along a dim (stack: a new one), promoted as torch.cat promotes.
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// ATen skips 1-D empty inputs of cat when checking shapes (a legacy of torch.Tensor() inputs).
bool skipped_by_cat(const Tensor& t);

// Writes each input's [outer, rows_i * inner] block at its offset along the joined dim `dim` of
// `out` (already resized; `joined` is out's size there); stack's inputs are one row each.
void join_blocks(ArrayRef<Tensor> tensors, int64_t outer, int64_t inner, int64_t joined, bool stack,
                 int64_t dim, Tensor& out);

// The dtype checks shared by cat and stack; false after ctx.fail.
bool check_join_dtypes(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, const Tensor& out);

}  // namespace kiln::portable
