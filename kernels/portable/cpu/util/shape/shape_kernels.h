// Bodies the shape operators share, each for one family: clone (clone, alias_copy, detach_copy),
// permuted copies (permute_copy, transpose_copy, t_copy), reshaped copies (squeeze_copy,
// unsqueeze_copy, view_copy, _unsafe_view), splits (split_copy, split_with_sizes_copy) and
// triangles (tril, triu). Each returns `out` (after ctx.fail on bad input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/core/tensor.h"
#include "runtime/core/tensor_options.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// out = self (same dtype and shape); memory_format is validated as ATen does.
Tensor& clone_into(KernelRuntimeContext& ctx, const Tensor& self,
                   std::optional<MemoryFormat> memory_format, Tensor& out);

// out = self with dim i of out taken from dim perm[i] of self (perm already validated).
Tensor& permuted_copy(KernelRuntimeContext& ctx, const Tensor& self, const int64_t* perm,
                      Tensor& out);

// out = self's elements with shape `sizes` (rank `ndim`), which has self's element count.
Tensor& reshaped_copy(KernelRuntimeContext& ctx, const Tensor& self, const SizesType* sizes,
                      int64_t ndim, Tensor& out);

// out = self's elements in shape `size`, where one size may be -1 and is inferred as ATen's
// infer_size does.
Tensor& view_into(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef size, Tensor& out);

// tril (`lower`) or triu, called `name`: row i of each matrix in self's last two dims keeps
// columns [0, i + diagonal] (lower) or [i + diagonal, cols) (upper), the rest is zero (zero bytes
// are zero in every dtype).
Tensor& triangle(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, bool lower,
                 const char* name, Tensor& out);

// split_copy and split_with_sizes_copy: piece i of self's dim d has size piece_size(i); each out
// gets its piece. Checks everything first so a
// failure leaves every out untouched.
template <typename PieceSize>
void split_into(KernelRuntimeContext& ctx, const Tensor& self, int64_t d, ArrayRef<Tensor> out,
                PieceSize piece_size) {
  if (!check_default_dim_order(ctx, self, "self")) return;
  for (const Tensor& o : out) {
    if (!check_default_dim_order(ctx, o, "out") ||
        !check_out_dtype_is(ctx, o, self.scalar_type())) {
      return;
    }
  }
  const int64_t rank = self.dim();
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t j = 0; j < rank; ++j) sizes[j] = self.size(j);
  for (size_t i = 0; i < out.size(); ++i) {
    Tensor o = out[i];
    sizes[d] = piece_size(i);
    if (!resize_or_fail(ctx, o, {sizes, static_cast<size_t>(rank)})) return;
  }
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t j = 0; j < d; ++j) outer *= self.size(j);
  for (int64_t j = d + 1; j < rank; ++j) inner *= self.size(j);
  const int64_t es = static_cast<int64_t>(self.element_size());
  const char* src = self.const_data_ptr<char>();
  int64_t offset = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t width = piece_size(i) * inner;
    if (out[i].numel() > 0) {
      CopyView view;
      view.push(outer, width, self.size(d) * inner);
      view.push(width, 1, 1);
      copy_view(ctx, out[i].mutable_data_ptr(), src + offset * inner * es, view,
                static_cast<size_t>(es));
    }
    offset += piece_size(i);
  }
}

}  // namespace kiln::portable
