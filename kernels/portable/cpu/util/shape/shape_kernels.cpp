// The bodies the shape operators share: clone, permuted, reshaped and triangle copies.
#include "kernels/portable/cpu/util/shape/shape_kernels.h"

#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"

namespace kiln::portable {
namespace {

// Resolves `size` against `numel` into `shape` as ATen's infer_size does; false after ctx.fail.
bool infer_shape(KernelRuntimeContext& ctx, IntArrayRef size, int64_t numel, SizesType* shape) {
  int64_t known = 1;
  int64_t inferred = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      KILN_KERNEL_CHECK_MSG(ctx, inferred < 0, InvalidArgument, false,
                            "only one dimension can be inferred: size %s has -1 at %lld and "
                            "%zu",
                            format_shape(size).text, static_cast<long long>(inferred), i);
      inferred = static_cast<int64_t>(i);
    } else {
      KILN_KERNEL_CHECK_MSG(ctx, size[i] >= 0, InvalidArgument, false,
                            "invalid shape dimension %lld at index %zu of shape %s",
                            static_cast<long long>(size[i]), i, format_shape(size).text);
      KILN_KERNEL_CHECK_MSG(ctx, size[i] == 0 || known <= INT64_MAX / size[i], InvalidArgument,
                            false,
                            "shape '%s' is invalid for input of size %lld (its element count "
                            "overflows int64)",
                            format_shape(size).text, static_cast<long long>(numel));
      known *= size[i];
    }
    shape[i] = size[i];
  }
  const bool fits = numel == known || (inferred >= 0 && known > 0 && numel % known == 0);
  KILN_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, false,
                        "shape '%s' is invalid for input of size %lld", format_shape(size).text,
                        static_cast<long long>(numel));
  if (inferred >= 0) {
    KILN_KERNEL_CHECK_MSG(ctx, known != 0, InvalidArgument, false,
                          "cannot reshape tensor of 0 elements into shape %s because the "
                          "unspecified dimension size -1 can be any value and is ambiguous",
                          format_shape(size).text);
    shape[inferred] = numel / known;
  }
  return true;
}

}  // namespace

Tensor& clone_into(KernelRuntimeContext& ctx, const Tensor& self,
                   std::optional<MemoryFormat> memory_format, Tensor& out) {
  if (!check_default_dim_order(ctx, self, "self") || !check_default_dim_order(ctx, out, "out")) {
    return out;
  }
  if (!check_memory_format(ctx, memory_format, self)) return out;
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  copy_bytes(ctx, self, out);
  return out;
}

Tensor& permuted_copy(KernelRuntimeContext& ctx, const Tensor& self, const int64_t* perm,
                      Tensor& out) {
  const int64_t rank = self.dim();
  int64_t strides[kTensorDimensionLimit];
  contiguous_strides(self.sizes(), strides);
  SizesType sizes[kTensorDimensionLimit];
  int64_t src_strides[kTensorDimensionLimit];
  for (int64_t i = 0; i < rank; ++i) {
    sizes[i] = self.size(perm[i]);
    src_strides[i] = strides[perm[i]];
  }
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(rank)})) return out;
  copy_strided_to_out(ctx, self, sizes, src_strides, rank, 0, out);
  return out;
}

Tensor& reshaped_copy(KernelRuntimeContext& ctx, const Tensor& self, const SizesType* sizes,
                      int64_t ndim, Tensor& out) {
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(ndim)})) return out;
  copy_bytes(ctx, self, out);
  return out;
}

Tensor& view_into(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef size, Tensor& out) {
  if (!check_default_dim_order(ctx, self, "self") || !check_default_dim_order(ctx, out, "out")) {
    return out;
  }
  if (!check_rank_limit(ctx, size.size(), "size")) return out;
  SizesType shape[kTensorDimensionLimit];
  if (!infer_shape(ctx, size, self.numel(), shape)) return out;
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  if (!resize_or_fail(ctx, out, {shape, size.size()})) return out;
  copy_bytes(ctx, self, out);
  return out;
}

Tensor& triangle(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, bool lower,
                 const char* name, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() >= 2, InvalidArgument, out,
                        "%s: input tensor must have at least 2 dimensions", name);
  if (!prepare_copy_out(ctx, self, out, self.sizes())) return out;
  const int64_t rows = self.size(-2);
  const int64_t cols = self.size(-1);
  if (self.numel() == 0) return out;
  const int64_t matrices = self.numel() / (rows * cols);
  const size_t es = self.element_size();
  const char* src = self.const_data_ptr<char>();
  char* dst = out.mutable_data_ptr<char>();
  // Clamp the diagonal so i + diagonal cannot overflow.
  const int64_t diag = diagonal < -rows ? -rows : (diagonal > cols ? cols : diagonal);
  for (int64_t m = 0; m < matrices * rows; ++m) {
    const int64_t i = m % rows;
    int64_t split = lower ? i + diag + 1 : i + diag;
    split = split < 0 ? 0 : (split > cols ? cols : split);
    const size_t head = static_cast<size_t>(split) * es;
    const size_t row = static_cast<size_t>(cols) * es;
    char* d = dst + static_cast<size_t>(m) * row;
    const char* s = src + static_cast<size_t>(m) * row;
    if (lower) {
      if (d != s) std::memcpy(d, s, head);
      std::memset(d + head, 0, row - head);
    } else {
      std::memset(d, 0, head);
      if (d != s) std::memcpy(d + head, s + head, row - head);
    }
  }
  return out;
}

}  // namespace kiln::portable
