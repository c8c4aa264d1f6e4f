// Runs the custom op through the registry (boxed) and through Functions.h (typed), then a
// portable ATen op from the same library; prints results for the test to check.
#include <cstdio>

#include "Functions.h"
#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/operator_registry.h"

int main() {
  if (register_custom_lib_kernels() != kiln::Error::Ok) return 1;
  float a_data[3] = {1, 2, 3};
  float b_data[3] = {10, 20, 30};
  float out_data[3] = {};
  kiln::DenseTensor<1> a(kiln::ScalarType::Float, {3}, a_data);
  kiln::DenseTensor<1> b(kiln::ScalarType::Float, {3}, b_data);
  kiln::DenseTensor<1> out(kiln::ScalarType::Float, {3}, out_data);

  const kiln::Backend portable[] = {kiln::Backend::Portable};
  auto kernel = kiln::find_kernel("kiln_custom::scaled_add.out", "", portable);
  if (!kernel.ok()) return 2;
  kiln::EValue values[] = {kiln::EValue(a.tensor()), kiln::EValue(b.tensor()), kiln::EValue(0.5),
                           kiln::EValue(out.tensor())};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  kiln::KernelRuntimeContext ctx;
  if ((*kernel)->call(ctx, stack) != kiln::Error::Ok) return 3;
  std::printf("boxed: %g %g %g\n", out_data[0], out_data[1], out_data[2]);

  kiln::Tensor out_tensor = out.tensor();
  kiln::kiln_custom::scaled_add_outf(ctx, a.tensor(), b.tensor(), 2.0, out_tensor);
  if (ctx.failure_state() != kiln::Error::Ok) return 4;
  std::printf("typed: %g %g %g\n", out_data[0], out_data[1], out_data[2]);

  kiln::aten::mul_outf(ctx, a.tensor(), b.tensor(), out_tensor);
  if (ctx.failure_state() != kiln::Error::Ok) return 5;
  std::printf("mul: %g %g %g\n", out_data[0], out_data[1], out_data[2]);

  // A wrong tag is refused with InvalidProgram, not a crash.
  kiln::EValue bad[] = {kiln::EValue(a.tensor()), kiln::EValue(int64_t{1}), kiln::EValue(0.5),
                        kiln::EValue(out.tensor())};
  kiln::EValue* bad_stack[] = {&bad[0], &bad[1], &bad[2], &bad[3]};
  kiln::KernelRuntimeContext bad_ctx;
  const kiln::Error error = (*kernel)->call(bad_ctx, bad_stack);
  std::printf("bad: %s: %s\n", kiln::to_string(error), bad_ctx.failure_message());
  return 0;
}
