// index_select.out: the slices of self at `index` along one dim, rows moved as contiguous blocks.
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// out[i, :] = self[rows[i], :] for one slab: `count` blocks of `inner` elements.
template <typename U>
void select_rows(const U* self, const int64_t* rows, int64_t count, int64_t inner, U* out) {
  if (inner == 1) {
    for (int64_t i = 0; i < count; ++i) out[i] = self[rows[i]];
    return;
  }
  for (int64_t i = 0; i < count; ++i, out += inner) copy_block(out, self + rows[i] * inner, inner);
}

}  // namespace

Tensor& index_select_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                         const Tensor& index, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_default_dim_order(ctx, out, "out") ||
      !check_default_dim_order(ctx, index, "index")) {
    return out;
  }
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &d)) return out;
  if (!check_index_dtype(ctx, index, "index_select", "index")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, index.dim() <= 1, InvalidArgument, out,
                        "index_select(): Index is supposed to be a vector (got %lld dims)",
                        static_cast<long long>(index.dim()));
  const int64_t count = index.numel();
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() > 0 || count == 1, InvalidArgument, out,
                        "index_select(): Index to scalar can have only 1 value, got %lld value(s)",
                        static_cast<long long>(count));
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  const ArrayRef<SizesType> sizes = self.sizes();
  const int64_t dim_size = self.dim() > 0 ? sizes[d] : 1;
  SizesType shape[kTensorDimensionLimit];
  for (size_t i = 0; i < sizes.size(); ++i) shape[i] = sizes[i];
  if (self.dim() > 0) shape[d] = count;
  if (!resize_or_fail(ctx, out, {shape, sizes.size()})) return out;
  if (count == 0) return out;
  // Index values double as row numbers below; check them all before anything is written.
  const IndexReader reader = IndexReader::of(index);
  const bool is_long = index.scalar_type() == ScalarType::Long;
  int64_t row_buffer[256];
  const int64_t outer = self.dim() > 0 ? size_product(sizes, 0, d) : 1;
  const int64_t inner = self.dim() > 0 ? size_product(sizes, d + 1, sizes.size()) : 1;
  for (int64_t i = 0; i < count; ++i) {
    int64_t v = 0;
    if (!check_index(ctx, reader[i], dim_size, d, false, &v)) return out;
  }
  if (outer == 0 || inner == 0) return out;
  dispatch_by_width(self.element_size(), [&](auto* tag) {
    using U = std::remove_pointer_t<decltype(tag)>;
    const U* src = self.const_data_ptr<U>();
    U* dst = out.mutable_data_ptr<U>();
    if (is_long) {
      // Long indices are the row numbers already; each outer slab walks them directly.
      for (int64_t o = 0; o < outer; ++o) {
        select_rows(src + o * dim_size * inner, index.const_data_ptr<int64_t>(), count, inner,
                    dst + o * count * inner);
      }
      return;
    }
    for (int64_t start = 0; start < count; start += 256) {
      const int64_t n = count - start < 256 ? count - start : 256;
      for (int64_t i = 0; i < n; ++i) row_buffer[i] = reader[start + i];
      for (int64_t o = 0; o < outer; ++o) {
        select_rows(src + o * dim_size * inner, row_buffer, n, inner,
                    dst + (o * count + start) * inner);
      }
    }
  });
  return out;
}

}  // namespace kiln::portable::native
