// atan2.out: the angle of (other, self); integer and bool inputs compute in Float.
#include "kernels/portable/cpu/util/elementwise/binary_driver.h"
#include "kernels/portable/cpu/util/elementwise/binary_ops.h"
#include "kernels/portable/cpu/util/vec/trig.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// float takes the vectorised atan2 (vec/trig.h), with the AVX-512 clone; double the C library's.
// The C library's atan2f runs one element at a time, far behind ATen's vector loop.
struct Atan2 {
  static constexpr bool kVectorMath = true;
  template <typename T>
  T operator()(T y, T x) const {
    return atan2_compute(y, x);
  }
};

}  // namespace

Tensor& atan2_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  const ScalarType common =
      prepare_binary(ctx, self, other, out, OutDtype::kCastable, Promotion::kToFloat);
  if (common == ScalarType::Undefined) return out;
  apply_binary_op<kFloatingTypes>(ctx, ElementwiseInput::of(self), ElementwiseInput::of(other),
                                  common, out, [](auto) { return Atan2{}; });
  return out;
}

}  // namespace kiln::portable::native
