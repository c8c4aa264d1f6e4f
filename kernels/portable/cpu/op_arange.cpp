// arange: start, start + step, ... below end, in out's dtype, with torch's length rule.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Writes start + step * i for i < n in accumulate type A (torch's: double for Float and Double,
// float for Half and BFloat16, int64 for the integers), converted to out's dtype.
template <typename A, typename C>
void write_range(A start, A step, int64_t n, Tensor& out) {
  constexpr int64_t kChunk = 256;
  C buffer[kChunk];
  const ScalarType type = out.scalar_type();
  char* dst = out.mutable_data_ptr<char>();
  const int64_t es = static_cast<int64_t>(out.element_size());
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t m = n - i < kChunk ? n - i : kChunk;
    for (int64_t j = 0; j < m; ++j) {
      if constexpr (std::is_integral_v<A>) {  // wraps like ATen's int64 arithmetic
        buffer[j] = static_cast<C>(static_cast<uint64_t>(start) +
                                   static_cast<uint64_t>(step) * static_cast<uint64_t>(i + j));
      } else {
        buffer[j] = static_cast<C>(start + step * static_cast<A>(i + j));
      }
    }
    store_row<C>(buffer, m, type, dst + i * es);
  }
}

}  // namespace

Tensor& arange_start_out(KernelRuntimeContext& ctx, const Scalar& start, const Scalar& end,
                         const Scalar& step, Tensor& out) {
  if (!check_tensor(ctx, out, "out")) return out;
  const ScalarType type = out.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, type != ScalarType::Bool, InvalidArgument, out,
                        "\"arange_cpu\" not implemented for 'Bool'");
  // Bounds are validated in double whatever the dtype.
  const double dstart = start.toDouble();
  const double dend = end.toDouble();
  const double dstep = step.toDouble();
  KILN_KERNEL_CHECK_MSG(ctx, dstep != 0, InvalidArgument, out, "step must be nonzero");
  KILN_KERNEL_CHECK_MSG(ctx, std::isfinite(dstart) && std::isfinite(dend), InvalidArgument, out,
                        "unsupported range: %g -> %g", dstart, dend);
  KILN_KERNEL_CHECK_MSG(ctx, (dstep > 0 && dend >= dstart) || (dstep < 0 && dend <= dstart),
                        InvalidArgument, out,
                        "upper bound and lower bound inconsistent with step sign");
  double length = 0;
  if (type == ScalarType::Long) {
    // Long counts with the truncated integer bounds, as ATen does.
    const int64_t istart = start.toInt();
    const int64_t iend = end.toInt();
    const int64_t istep = step.toInt();
    KILN_KERNEL_CHECK_MSG(ctx, istep != 0, InvalidArgument, out, "step must be nonzero");
    const int64_t sign = istep > 0 ? 1 : -1;
    const uint64_t span = static_cast<uint64_t>(iend) - static_cast<uint64_t>(istart) +
                          static_cast<uint64_t>(istep) - static_cast<uint64_t>(sign);
    length = static_cast<double>(static_cast<int64_t>(span) / istep);
  } else {
    length = std::ceil((dend - dstart) / dstep);
  }
  KILN_KERNEL_CHECK_MSG(ctx, length >= 0 && length <= 9.2e18, InvalidArgument, out,
                        "invalid size, possible overflow?");
  const int64_t n = static_cast<int64_t>(length);
  if (out.numel() != n) {
    const SizesType size[1] = {n};
    if (!resize_or_fail(ctx, out, {size, 1})) return out;
  }
  if (n == 0) return out;
  if (is_floating_type(type)) {
    if (type == ScalarType::Float || type == ScalarType::Double) {
      write_range<double, double>(dstart, dstep, n, out);
    } else {
      write_range<float, float>(start.to<float>(), step.to<float>(), n, out);
    }
  } else {
    write_range<int64_t, int64_t>(start.toInt(), step.toInt(), n, out);
  }
  return out;
}

Tensor& arange_out(KernelRuntimeContext& ctx, const Scalar& end, Tensor& out) {
  return arange_start_out(ctx, Scalar(int64_t{0}), end, Scalar(int64_t{1}), out);
}

}  // namespace kiln::portable::native
