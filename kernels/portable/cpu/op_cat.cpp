// cat and stack: tensors joined along a dim (stack: a new one), promoted as torch.cat promotes.
#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/copy.h"
#include "kernels/portable/cpu/util/promotion.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// ATen skips 1-D empty inputs of cat when checking shapes (a legacy of torch.Tensor() inputs).
bool skipped_by_cat(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

// Writes each input's [outer, rows_i * inner] block at
// its offset along the joined dim of `out` (already resized; `joined` is out's size there).
void join_blocks(ArrayRef<Tensor> tensors, int64_t outer, int64_t inner, int64_t joined, bool stack,
                 int64_t dim, Tensor& out) {
  if (out.numel() == 0) return;
  const ScalarType out_type = out.scalar_type();
  const int64_t es = static_cast<int64_t>(out.element_size());
  char* dst = out.mutable_data_ptr<char>();
  bool same_dtype = true;
  for (const Tensor& t : tensors) same_dtype = same_dtype && t.scalar_type() == out_type;
  const auto rows_of = [&](const Tensor& t) {
    return stack ? int64_t{1} : (skipped_by_cat(t) ? int64_t{0} : t.size(dim));
  };
  if (same_dtype) {
    // Out row by out row, so the destination is written front to back.
    const int64_t out_row = joined * inner * es;
    for (int64_t o = 0; o < outer; ++o) {
      char* d = dst + o * out_row;
      for (const Tensor& t : tensors) {
        const int64_t width = rows_of(t) * inner * es;
        if (width > 0) std::memcpy(d, t.const_data_ptr<char>() + o * width, width);
        d += width;
      }
    }
    return;
  }
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    const int64_t rows = rows_of(t);
    const int64_t width = rows * inner;
    const char* src = t.const_data_ptr<char>();
    const int64_t src_es = static_cast<int64_t>(t.element_size());
    for (int64_t o = 0; o < outer && width > 0; ++o) {
      convert_copy(dst + (o * joined + offset) * inner * es, out_type, src + o * width * src_es,
                   t.scalar_type(), width);
    }
    offset += rows;
  }
}

// The dtype checks shared by cat and stack; false after ctx.fail.
bool check_join_dtypes(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, const Tensor& out) {
  if (!check_tensor(ctx, out, "out")) return false;
  ResultType result;
  for (const Tensor& t : tensors) {
    if (!check_tensor(ctx, t, "tensors")) return false;
    result.add_tensor(t);
  }
  const ScalarType common = result.get();
  KILN_KERNEL_CHECK_MSG(ctx, common != ScalarType::Undefined, InvalidArgument, false,
                        "torch.cat(): the input dtypes cannot be promoted together");
  KILN_KERNEL_CHECK_MSG(ctx, can_cast(common, out.scalar_type()), InvalidArgument, false,
                        "torch.cat(): input types can't be cast to the desired output type %s",
                        to_string(out.scalar_type()));
  return true;
}

}  // namespace

Tensor& cat_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, int64_t dim, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out,
                        "torch.cat(): expected a non-empty list of Tensors");
  for (size_t i = 0; i < tensors.size(); ++i) {
    KILN_KERNEL_CHECK_MSG(ctx, tensors[i].dim() > 0, InvalidArgument, out,
                          "zero-dimensional tensor (at position %zu) cannot be concatenated", i);
  }
  if (!check_join_dtypes(ctx, tensors, out)) return out;
  // The first input cat does not skip fixes the rank and the other sizes.
  size_t first = 0;
  while (first < tensors.size() && skipped_by_cat(tensors[first])) ++first;
  if (first == tensors.size()) {
    const SizesType empty[1] = {0};
    (void)resize_or_fail(ctx, out, {empty, 1});
    return out;
  }
  const Tensor& ref = tensors[first];
  const int64_t rank = ref.dim();
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, rank, &d)) return out;
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t i = 0; i < rank; ++i) sizes[i] = ref.size(i);
  sizes[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped_by_cat(t)) continue;
    KILN_KERNEL_CHECK_MSG(ctx, t.dim() == rank, InvalidArgument, out,
                          "Tensors must have same number of dimensions: got %lld and %lld",
                          static_cast<long long>(rank), static_cast<long long>(t.dim()));
    for (int64_t j = 0; j < rank; ++j) {
      KILN_KERNEL_CHECK_MSG(ctx, j == d || t.size(j) == ref.size(j), InvalidArgument, out,
                            "Sizes of tensors must match except in dimension %lld. Expected size "
                            "%lld but got size %lld for tensor number %zu in the list.",
                            static_cast<long long>(d), static_cast<long long>(ref.size(j)),
                            static_cast<long long>(t.size(j)), i);
    }
    sizes[d] += t.size(d);
  }
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)})) return out;
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t j = 0; j < d; ++j) outer *= sizes[j];
  for (int64_t j = d + 1; j < rank; ++j) inner *= sizes[j];
  join_blocks(tensors, outer, inner, sizes[d], false, d, out);
  return out;
}

Tensor& stack_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, int64_t dim, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out,
                        "stack expects a non-empty TensorList");
  const Tensor& ref = tensors[0];
  const int64_t rank = ref.dim();
  for (size_t i = 1; i < tensors.size(); ++i) {
    bool same = tensors[i].dim() == rank;
    for (int64_t j = 0; same && j < rank; ++j) same = tensors[i].size(j) == ref.size(j);
    KILN_KERNEL_CHECK_MSG(ctx, same, InvalidArgument, out,
                          "stack expects each tensor to be equal size, but got %s at entry 0 and "
                          "%s at entry %zu",
                          format_shape(ref.sizes()).text, format_shape(tensors[i].sizes()).text, i);
  }
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, rank + 1, &d)) return out;
  KILN_KERNEL_CHECK_MSG(ctx, rank < static_cast<int64_t>(kTensorDimensionLimit), InvalidArgument,
                        out, "stack of %lld-dim tensors exceeds %zu dims",
                        static_cast<long long>(rank), kTensorDimensionLimit);
  if (!check_join_dtypes(ctx, tensors, out)) return out;
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t i = 0, j = 0; i <= rank; ++i) {
    sizes[i] = i == d ? static_cast<int64_t>(tensors.size()) : ref.size(j++);
  }
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank + 1)})) return out;
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t j = 0; j < d; ++j) outer *= sizes[j];
  for (int64_t j = d + 1; j <= rank; ++j) inner *= sizes[j];
  join_blocks(tensors, outer, inner, sizes[d], true, d, out);
  return out;
}

}  // namespace kiln::portable::native
