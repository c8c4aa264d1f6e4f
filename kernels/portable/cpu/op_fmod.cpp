// fmod.Tensor_out and fmod.Scalar_out: self modulo other with the sign of the dividend (C's fmod).
#include <cmath>
#include <type_traits>

#include "kernels/portable/cpu/util/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// C's fmod: the result takes the sign of the dividend.
constexpr auto kFmod = [](auto a, auto b) {
  if constexpr (std::is_integral_v<decltype(a)>) {
    return fmod_int(a, b);
  } else {
    return std::fmod(a, b);
  }
};

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
