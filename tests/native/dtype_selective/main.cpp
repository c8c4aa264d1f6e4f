// Runs a Float-only library: its selected dtype works, the others are refused with NotSupported
// (boxed, by the unboxing; typed, by a kernel whose code for the dtype compiled away), and a
// typed call with a dtype whose fast path compiled away still computes through the general path
// where the kernel has one (add), and is refused where the kernel compiles same-dtype loops alone
// (relu).
#include <cstdio>

#include "Functions.h"
#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/core/half.h"
#include "runtime/kernel/operator_registry.h"

namespace {

kiln::Error call_add(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& a, const kiln::Tensor& b,
                     kiln::Tensor& out) {
  const kiln::Backend portable[] = {kiln::Backend::Portable};
  auto kernel = kiln::find_kernel("aten::add.out", "", portable);
  if (!kernel.ok()) return kernel.error();
  kiln::EValue values[] = {kiln::EValue(a), kiln::EValue(b), kiln::EValue(int64_t{1}),
                           kiln::EValue(out)};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  return (*kernel)->call(ctx, stack);
}

}  // namespace

int main() {
  if (register_float_lib_kernels() != kiln::Error::Ok) return 1;

  float af[3] = {1, 2, 3}, bf[3] = {10, 20, 30}, of[3] = {};
  kiln::DenseTensor<1> a(kiln::ScalarType::Float, {3}, af), b(kiln::ScalarType::Float, {3}, bf);
  kiln::DenseTensor<1> out(kiln::ScalarType::Float, {3}, of);
  float signs[3] = {1.5f, -2.0f, 0.25f};
  kiln::DenseTensor<1> mixed_signs(kiln::ScalarType::Float, {3}, signs);
  kiln::KernelRuntimeContext ctx;
  kiln::Tensor out_tensor = out.tensor();
  const kiln::Error ok = call_add(ctx, a.tensor(), b.tensor(), out_tensor);
  std::printf("float add: %s %g %g %g\n", kiln::to_string(ok), of[0], of[1], of[2]);

  double ad[3] = {1, 2, 3}, od[3] = {};
  kiln::DenseTensor<1> a64(kiln::ScalarType::Double, {3}, ad);
  kiln::DenseTensor<1> out64(kiln::ScalarType::Double, {3}, od);
  kiln::Tensor out64_tensor = out64.tensor();
  kiln::KernelRuntimeContext double_ctx;
  const kiln::Error refused = call_add(double_ctx, a64.tensor(), a64.tensor(), out64_tensor);
  std::printf("double add: %s: %s\n", kiln::to_string(refused), double_ctx.failure_message());

  double md[4] = {1, 2, 3, 4}, mo[4] = {};
  kiln::DenseTensor<2> m(kiln::ScalarType::Double, {2, 2}, md);
  kiln::DenseTensor<2> mout(kiln::ScalarType::Double, {2, 2}, mo);
  kiln::Tensor mout_tensor = mout.tensor();
  kiln::KernelRuntimeContext mm_ctx;
  kiln::aten::mm_outf(mm_ctx, m.tensor(), m.tensor(), mout_tensor);
  std::printf("typed double mm: %s: %s\n", kiln::to_string(mm_ctx.failure_state()),
              mm_ctx.failure_message());

  kiln::Half ah[3] = {kiln::Half(1.5f), kiln::Half(2.0f), kiln::Half(-3.0f)}, oh[3] = {};
  kiln::DenseTensor<1> a16(kiln::ScalarType::Half, {3}, ah);
  kiln::DenseTensor<1> out16(kiln::ScalarType::Half, {3}, oh);
  kiln::Tensor out16_tensor = out16.tensor();
  kiln::KernelRuntimeContext half_ctx;
  kiln::aten::add_outf(half_ctx, a16.tensor(), a16.tensor(), 1, out16_tensor);
  std::printf("typed half add: %s %g %g %g\n", kiln::to_string(half_ctx.failure_state()),
              static_cast<float>(oh[0]), static_cast<float>(oh[1]), static_cast<float>(oh[2]));

  // relu compiles its same-dtype loops alone: Float runs, Half is refused.
  float rf[3] = {};
  kiln::DenseTensor<1> relu_out(kiln::ScalarType::Float, {3}, rf);
  kiln::Tensor relu_tensor = relu_out.tensor();
  kiln::KernelRuntimeContext relu_ctx;
  kiln::aten::relu_outf(relu_ctx, mixed_signs.tensor(), relu_tensor);
  std::printf("typed float relu: %s %g %g %g\n", kiln::to_string(relu_ctx.failure_state()), rf[0],
              rf[1], rf[2]);
  kiln::KernelRuntimeContext relu_half_ctx;
  kiln::aten::relu_outf(relu_half_ctx, a16.tensor(), out16_tensor);
  std::printf("typed half relu: %s: %s\n", kiln::to_string(relu_half_ctx.failure_state()),
              relu_half_ctx.failure_message());
  return 0;
}
