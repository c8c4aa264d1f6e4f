// embedding.out: rows of a 2-D weight table gathered at integer indices (forward only).
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

// padding_idx, scale_grad_by_freq and sparse only change the backward pass.
Tensor& embedding_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& indices,
                      int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/, bool /*sparse*/,
                      Tensor& out) {
  if (!check_tensor(ctx, weight, "weight") || !check_default_dim_order(ctx, out, "out") ||
      !check_default_dim_order(ctx, indices, "indices")) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, weight.dim() == 2, InvalidArgument, out,
                        "'weight' must be 2-D (got %lld dims)",
                        static_cast<long long>(weight.dim()));
  if (!check_index_dtype(ctx, indices, "embedding", "indices")) return out;
  if (!check_out_dtype_is(ctx, out, weight.scalar_type())) return out;
  KILN_KERNEL_CHECK_MSG(ctx, indices.dim() < static_cast<int64_t>(kTensorDimensionLimit),
                        InvalidArgument, out, "indices have %lld dims; the result would exceed %zu",
                        static_cast<long long>(indices.dim()), kTensorDimensionLimit);
  SizesType shape[kTensorDimensionLimit];
  const ArrayRef<SizesType> index_sizes = indices.sizes();
  for (size_t i = 0; i < index_sizes.size(); ++i) shape[i] = index_sizes[i];
  shape[index_sizes.size()] = weight.size(1);
  if (!resize_or_fail(ctx, out, {shape, index_sizes.size() + 1})) return out;
  const int64_t count = indices.numel();
  const int64_t rows = weight.size(0);
  const int64_t width = weight.size(1);
  const IndexReader reader = IndexReader::of(indices);
  for (int64_t i = 0; i < count; ++i) {
    KILN_KERNEL_CHECK_MSG(ctx, reader[i] >= 0 && reader[i] < rows, InvalidArgument, out,
                          "index out of range in self: index %lld at position %lld, weight has "
                          "%lld rows",
                          static_cast<long long>(reader[i]), static_cast<long long>(i),
                          static_cast<long long>(rows));
  }
  if (width == 0) return out;
  dispatch_by_width(weight.element_size(), [&](auto* tag) {
    using U = std::remove_pointer_t<decltype(tag)>;
    const U* table = weight.const_data_ptr<U>();
    U* dst = out.mutable_data_ptr<U>();
    for (int64_t i = 0; i < count; ++i, dst += width)
      copy_block(dst, table + reader[i] * width, width);
  });
  return out;
}

}  // namespace kiln::portable::native
