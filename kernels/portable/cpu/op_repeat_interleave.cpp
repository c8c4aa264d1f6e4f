// repeat_interleave.Tensor_out: each index i of a 1-D repeats tensor written repeats[i] times,
// in order ([2, 0, 1] gives [0, 0, 2]), in repeats' dtype (Int or Long).
#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& repeat_interleave_tensor_out(KernelRuntimeContext& ctx, const Tensor& repeats,
                                     std::optional<int64_t> output_size, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, repeats.dim() == 1, InvalidArgument, out,
                        "repeat_interleave only accept 1D vector as repeat (repeats has shape %s)",
                        format_shape(repeats.sizes()).text);
  const ScalarType dtype = repeats.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, dtype == ScalarType::Long || dtype == ScalarType::Int, InvalidArgument,
                        out, "repeat_interleave: repeats has dtype %s; pass an Int or Long tensor",
                        to_string(dtype));
  if (!check_default_dim_order(ctx, out, "out") || !check_out_dtype_is(ctx, out, dtype)) {
    return out;
  }
  const IndexReader counts = IndexReader::of(repeats);
  const int64_t n = repeats.numel();
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    KILN_KERNEL_CHECK_MSG(ctx, counts[i] >= 0, InvalidArgument, out,
                          "repeats can not be negative (repeats[%lld] is %lld)",
                          static_cast<long long>(i), static_cast<long long>(counts[i]));
    KILN_KERNEL_CHECK_MSG(ctx, !__builtin_add_overflow(total, counts[i], &total), InvalidArgument,
                          out, "repeat_interleave: the repeats add up to more than int64 holds");
  }
  // As in ATen, an empty repeats gives an empty result whatever output_size says.
  KILN_KERNEL_CHECK_MSG(
      ctx, n == 0 || !output_size.has_value() || *output_size == total, InvalidArgument, out,
      "allocated size does not match required size (output_size %lld, the "
      "repeats add up to %lld)",
      static_cast<long long>(output_size.value_or(0)), static_cast<long long>(total));
  const SizesType sizes[1] = {total};
  if (!resize_or_fail(ctx, out, {sizes, 1})) return out;
  const auto write = [&](auto* dst) {
    using T = std::remove_pointer_t<decltype(dst)>;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = counts[i]; k > 0; --k) *dst++ = static_cast<T>(i);
    }
  };
  if (dtype == ScalarType::Long) {
    write(out.mutable_data_ptr<int64_t>());
  } else {
    write(out.mutable_data_ptr<int32_t>());
  }
  return out;
}

}  // namespace kiln::portable::native
