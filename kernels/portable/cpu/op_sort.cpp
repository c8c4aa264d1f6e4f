// sort.values / sort.values_stable: self sorted along one dim, with the source positions.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <tuple>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/sort.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// An unsigned key whose integer order is the sort order of 32-bit-or-narrower values: NaN
// largest (every NaN alike), -0 equal to 0.
template <typename T>
uint32_t order_key(T value) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, uint8_t>) {
    return value;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<uint32_t>(static_cast<int32_t>(value)) ^ 0x80000000u;
  } else {
    float f = static_cast<float>(value);
    if (f != f) return 0xffffffffu;
    if (f == 0.0f) f = 0.0f;
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
  }
}

// Sorts a row by packing (key(value), position) into each 64-bit slot of the indices out row
// and sorting those plain integers: stable by construction, no scratch, no indirection. `key`
// maps values to 32-bit unsigned keys in sort order.
template <typename T, typename Key>
void sort_row_packed(const T* row, int64_t stride, int64_t n, bool descending, const Key& key,
                     StridedIterator<int64_t> slots, T* values) {
  const uint32_t flip = descending ? 0xffffffffu : 0u;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t k = key(row[i * stride]) ^ flip;
    slots[i] = static_cast<int64_t>((k << 32) | static_cast<uint64_t>(i));
  }
  // Every packed key is compared as unsigned; the sign bit belongs to the key.
  std::sort(slots, slots + n, [](int64_t a, int64_t b) {
    return static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
  });
  for (int64_t i = 0; i < n; ++i) {
    const int64_t position = static_cast<int64_t>(static_cast<uint64_t>(slots[i]) & 0xffffffffu);
    slots[i] = position;
    values[i * stride] = row[position * stride];
  }
}

// Sorts one row, packed when its values have 32-bit keys: narrow dtypes always, int64 when the
// row's range spans less than 2^32 (keys are offsets from its minimum). Returns false when the
// row needs the general comparison sort.
template <typename T>
bool try_sort_row_packed(const T* row, int64_t stride, int64_t n, bool descending,
                         StridedIterator<int64_t> slots, T* values) {
  if (n > 0xffffffffLL) return false;
  if constexpr (sizeof(T) <= 4) {
    sort_row_packed(row, stride, n, descending, [](T v) { return order_key(v); }, slots, values);
    return true;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    int64_t low = row[0];
    int64_t high = row[0];
    for (int64_t i = 1; i < n; ++i) {
      low = std::min(low, row[i * stride]);
      high = std::max(high, row[i * stride]);
    }
    if (static_cast<uint64_t>(high) - static_cast<uint64_t>(low) > 0xffffffffu) return false;
    const auto key = [low](int64_t v) {
      return static_cast<uint32_t>(static_cast<uint64_t>(v) - static_cast<uint64_t>(low));
    };
    sort_row_packed(row, stride, n, descending, key, slots, values);
    return true;
  } else {
    return false;
  }
}

// Every sort is stable (ties keep source order), which is also what ATen's CPU sort produces.
void sort_impl(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool descending,
               Tensor& values, Tensor& indices) {
  if (!check_tensor(ctx, self, "self") || !check_default_dim_order(ctx, values, "values") ||
      !check_default_dim_order(ctx, indices, "indices")) {
    return;
  }
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &d)) return;
  if (!check_out_dtype_is(ctx, values, self.scalar_type())) return;
  if (!check_out_dtype_is(ctx, indices, ScalarType::Long)) return;
  if (!resize_or_fail(ctx, values, self.sizes()) || !resize_or_fail(ctx, indices, self.sizes())) {
    return;
  }
  if (self.numel() == 0) return;
  const int64_t kept = self.dim() > 0 ? self.size(d) : 1;  // a sort keeps the whole row
  for_each_dim_row(
      self, d, kept, values, indices,
      [&](const auto* row, int64_t stride, int64_t n, StridedIterator<int64_t> first, auto* dst) {
        using T = std::remove_pointer_t<decltype(dst)>;
        if (try_sort_row_packed(row, stride, n, descending, first, dst)) return;
        for (int64_t i = 0; i < n; ++i) first[i] = i;
        std::sort(first, first + n, PositionOrder<T>{row, stride, descending});
        for (int64_t i = 0; i < n; ++i) dst[i * stride] = row[first[i] * stride];
      });
}

}  // namespace

std::tuple<Tensor&, Tensor&> sort_values(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                         bool descending, Tensor& values, Tensor& indices) {
  sort_impl(ctx, self, dim, descending, values, indices);
  return {values, indices};
}

std::tuple<Tensor&, Tensor&> sort_values_stable(KernelRuntimeContext& ctx, const Tensor& self,
                                                std::optional<bool> /*stable*/, int64_t dim,
                                                bool descending, Tensor& values, Tensor& indices) {
  sort_impl(ctx, self, dim, descending, values, indices);
  return {values, indices};
}

}  // namespace kiln::portable::native
