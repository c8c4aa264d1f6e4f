// fmod.Tensor_out and fmod.Scalar_out: self modulo other with the sign of the dividend (C's fmod).
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// C's fmod: the result takes the sign of the dividend.
struct Fmod {
  static constexpr bool kRemainder = false;
  template <typename T>
  T operator()(T a, T b) const {
    return fmod_int(a, b);
  }
};
constexpr Fmod kFmod;

}  // namespace

Tensor& fmod_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return modulo_out(ctx, "fmod", self, other, out, kFmod);
}

Tensor& fmod_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                        Tensor& out) {
  return modulo_out(ctx, "fmod", self, other, out, kFmod);
}

}  // namespace kiln::portable::native
