// topk.values: the k largest (or smallest) elements along one dim, with their positions.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/sort.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// The first position from i on whose value ranks strictly before `worst` (n when none).
template <bool kLargest, typename T, typename Key>
int64_t next_entrant(const T* row, int64_t stride, int64_t i, int64_t n, Key worst) {
  for (; i < n; ++i) {
    const Key value = static_cast<Key>(row[i * stride]);
    if (kLargest ? key_less(worst, value) : key_less(value, worst)) return i;
  }
  return n;
}

// Selects a row's k best positions with a k-slot heap kept in the indices out row itself (its
// top is the worst kept position), so no scratch memory is needed; O(n log k). Positions only
// grow, so an element tied with the worst kept one ranks after it: only a strictly better value
// enters, which a plain scan against the cached worst value finds.
template <bool kLargest, typename T>
void select_row(const T* row, int64_t stride, int64_t n, int64_t k, StridedIterator<int64_t> heap,
                T* values) {
  using Key = sort_key_t<T>;
  const PositionOrder<T> better{row, stride, kLargest};
  for (int64_t i = 0; i < k; ++i) heap[i] = i;
  std::make_heap(heap, heap + k, better);
  for (int64_t i = k;; ++i) {
    i = next_entrant<kLargest>(row, stride, i, n, static_cast<Key>(row[heap[0] * stride]));
    if (i == n) break;
    std::pop_heap(heap, heap + k, better);
    heap[k - 1] = i;
    std::push_heap(heap, heap + k, better);
  }
  std::sort_heap(heap, heap + k, better);
  for (int64_t i = 0; i < k; ++i) values[i * stride] = row[heap[i] * stride];
}

}  // namespace

// Results come out sorted best-first even when `sorted` is false: any order is allowed then.
std::tuple<Tensor&, Tensor&> topk_values(KernelRuntimeContext& ctx, const Tensor& self, int64_t k,
                                         int64_t dim, bool largest, bool /*sorted*/, Tensor& values,
                                         Tensor& indices) {
  const std::tuple<Tensor&, Tensor&> result{values, indices};
  if (!check_tensor(ctx, self, "self") || !check_default_dim_order(ctx, values, "values") ||
      !check_default_dim_order(ctx, indices, "indices")) {
    return result;
  }
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &d)) return result;
  const ArrayRef<SizesType> sizes = self.sizes();
  const int64_t n = self.dim() > 0 ? sizes[d] : 1;
  KILN_KERNEL_CHECK_MSG(ctx, k >= 0 && k <= n, InvalidArgument, result,
                        "selected index k out of range: k = %lld for dimension %lld of size %lld",
                        static_cast<long long>(k), static_cast<long long>(d),
                        static_cast<long long>(n));
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidArgument, result,
                        "topk does not support bool dtypes on CPU");
  if (!check_out_dtype_is(ctx, values, self.scalar_type())) return result;
  if (!check_out_dtype_is(ctx, indices, ScalarType::Long)) return result;
  SizesType shape[kTensorDimensionLimit];
  for (size_t i = 0; i < sizes.size(); ++i) shape[i] = sizes[i];
  if (self.dim() > 0) shape[d] = k;
  if (!resize_or_fail(ctx, values, {shape, sizes.size()}) ||
      !resize_or_fail(ctx, indices, {shape, sizes.size()})) {
    return result;
  }
  // A 0-dim self yields its one element even for k == 0, as ATen does.
  const int64_t kept = self.dim() > 0 ? k : 1;
  if (kept == 0 || self.numel() == 0) return result;
  for_each_dim_row(
      self, d, kept, values, indices,
      [&](const auto* row, int64_t stride, int64_t n, StridedIterator<int64_t> heap, auto* dst) {
        if (largest) {
          select_row<true>(row, stride, n, kept, heap, dst);
        } else {
          select_row<false>(row, stride, n, kept, heap, dst);
        }
      });
  return result;
}

}  // namespace kiln::portable::native
