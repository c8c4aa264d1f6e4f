// bitwise_not.out: ~self on integers, logical not on Bool; floating dtypes are rejected.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& bitwise_not_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, !is_floating_type(dtype), InvalidType, out,
                        "bitwise_not is not implemented for dtype %s; pass an integer or Bool "
                        "tensor",
                        to_string(dtype));
  if (!prepare_same_dtype(ctx, self, out)) return out;
  if (dtype == ScalarType::Bool) {
    // Logical not on the bytes, not through the converting path's int64 buffers.
    const auto* in = static_cast<const uint8_t*>(self.const_data_ptr());
    auto* result = static_cast<uint8_t*>(out.mutable_data_ptr());
    parallel_for(
        ctx, 0, self.numel(), kElementwiseGrain,
        [&](int64_t begin, int64_t end) {
          detail::unary_loop(in + begin, result + begin, end - begin,
                             [](uint8_t x) { return static_cast<uint8_t>(x == 0); });
        },
        kParallelAlign);
    return out;
  }
  apply_unary<kIntegralTypes>(ctx, self, dtype, out, [](auto zero) {
    using T = decltype(zero);
    return [](T x) { return static_cast<T>(~x); };
  });
  return out;
}

}  // namespace kiln::portable::native
