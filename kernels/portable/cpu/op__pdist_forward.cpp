// _pdist_forward.out: the p-norm distance between every pair of rows i < j of a 2-d input
// [N, M], in row-major pair order (N * (N - 1) / 2 values), as torch.pdist computes it.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/linalg/distance.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Accumulates in 8 interleaved lanes, as ATen's vectorised pdist does (so its NaN-propagating
// max applies).
template <typename T, typename N>
KILN_ALWAYS_INLINE T row_distance(const T* a, const T* b, int64_t m, T p) {
  constexpr int64_t kLanes = 8;
  T lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= m; i += kLanes) {
    KILN_UNROLL
    for (int64_t l = 0; l < kLanes; ++l) {
      lanes[l] = N::reduce(lanes[l], N::map(std::fabs(a[i + l] - b[i + l]), p));
    }
  }
  KILN_UNROLL
  for (int64_t l = 0; i < m; ++i, ++l) {
    lanes[l] = N::reduce(lanes[l], N::map(std::fabs(a[i] - b[i]), p));
  }
  T acc = lanes[0];
  KILN_UNROLL
  for (int64_t l = 1; l < kLanes; ++l) acc = N::reduce(acc, lanes[l]);
  return N::finish(acc, p);
}

template <typename T, typename N>
KILN_ALWAYS_INLINE void all_pairs(const T* x, int64_t n, int64_t m, T p, T* out) {
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) out[k++] = row_distance<T, N>(x + i * m, x + j * m, m, p);
  }
}

// The float loops in a multiversioned clone (the norm is a template argument, so no callback
// leaves the clone).
template <typename N>
KILN_HOT_LOOP void all_pairs_float(const float* x, int64_t n, int64_t m, float p, float* out) {
  all_pairs<float, N>(x, n, m, p, out);
}

}  // namespace

Tensor& _pdist_forward_out(KernelRuntimeContext& ctx, const Tensor& self, double p, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  // ATen's _pdist_forward reads a 3-d or wider input as if it were [size(0), size(1)]; Kiln
  // refuses it, as torch.pdist does.
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() == 2, InvalidArgument, out,
                        "pdist only supports 2D tensors, got: %lldD; pass rows of shape [N, M]",
                        static_cast<long long>(self.dim()));
  const ScalarType dtype = self.scalar_type();
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  const int64_t n = self.size(0), m = self.size(1);
  const SizesType pairs[1] = {n > 1 ? n * (n - 1) / 2 : 0};
  if (!resize_or_fail(ctx, out, {pairs, 1})) return out;
  if (pairs[0] == 0) return out;
  if (m == 0) {  // no coordinates: every distance is 0, whatever the dtype (as in ATen)
    std::memset(out.mutable_data_ptr(), 0, out.nbytes());
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, dtype == ScalarType::Float || dtype == ScalarType::Double, InvalidType,
                        out, "\"pdist\" not implemented for '%s'; pass a Float or Double input",
                        to_string(dtype));
  dispatch_norm</*kMaxPropagatesNan=*/true>(p, [&](auto norm) {
    using N = decltype(norm);
    if (dtype == ScalarType::Float) {
      all_pairs_float<N>(self.const_data_ptr<float>(), n, m, static_cast<float>(p),
                         out.mutable_data_ptr<float>());
    } else {
      all_pairs<double, N>(self.const_data_ptr<double>(), n, m, p, out.mutable_data_ptr<double>());
    }
  });
  return out;
}

}  // namespace kiln::portable::native
