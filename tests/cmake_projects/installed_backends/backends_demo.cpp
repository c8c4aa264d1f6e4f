// Runs the user's acme::double_it, then Kiln's aten::add.out on each backend without fallback,
// and prints which backend served each call.
#include <cstdio>

#include "Functions.h"
#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/operator_registry.h"

namespace {

// out = self + other on `backend` only; prints the result and the kernel that ran.
bool add_on(kiln::Backend backend, const kiln::Tensor& self, const kiln::Tensor& other) {
  float out_data[3] = {};
  kiln::DenseTensor<1> out(kiln::ScalarType::Float, {3}, out_data);
  kiln::EValue values[] = {kiln::EValue(self), kiln::EValue(other), kiln::EValue(int64_t{1}),
                           kiln::EValue(out.tensor())};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  const kiln::Backend only[] = {backend};
  const kiln::Kernel* served = nullptr;
  kiln::KernelRuntimeContext ctx;
  const kiln::Error error =
      kiln::call_operator(ctx, "aten::add.out", stack, only, /*allow_fallback=*/false, &served);
  if (error != kiln::Error::Ok) {
    std::printf("add on %s failed: %s: %s\n", kiln::to_string(backend), kiln::to_string(error),
                ctx.failure_message());
    return false;
  }
  std::printf("add on %s (served by %s): %g %g %g\n", kiln::to_string(backend),
              kiln::to_string(served->backend), out_data[0], out_data[1], out_data[2]);
  return true;
}

}  // namespace

int main() {
  if (kiln::Error error = register_acme_backend_ops_kernels(); error != kiln::Error::Ok) {
    std::printf("registration failed: %s (%s)\n", kiln::to_string(error), kiln::last_error());
    return 1;
  }
  float x_data[3] = {-1, 0, 2};
  float doubled_data[3] = {};
  kiln::DenseTensor<1> x(kiln::ScalarType::Float, {3}, x_data);
  kiln::DenseTensor<1> doubled(kiln::ScalarType::Float, {3}, doubled_data);
  kiln::Tensor doubled_out = doubled.tensor();
  kiln::KernelRuntimeContext ctx;
  kiln::acme::double_it_outf(ctx, x.tensor(), doubled_out);
  if (ctx.failure_state() != kiln::Error::Ok) {
    std::printf("double_it failed: %s\n", ctx.failure_message());
    return 1;
  }
  std::printf("doubled: %g %g %g\n", doubled_data[0], doubled_data[1], doubled_data[2]);
  const bool ok = add_on(kiln::Backend::Portable, doubled_out, x.tensor()) &&
                  add_on(kiln::Backend::Ascend, doubled_out, x.tensor());
  std::printf("fallbacks: %llu\n", static_cast<unsigned long long>(kiln::fallback_count()));
  return ok ? 0 : 1;
}
