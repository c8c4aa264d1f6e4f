// add_lib demo: registers the generated add_lib, looks up aten::add.out by name and runs it
// through a boxed EValue stack on real tensors.
#include <cstdio>

#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/operator_registry.h"

int main() {
  if (kiln::Error error = register_add_lib_kernels(); error != kiln::Error::Ok) {
    std::printf("registration failed: %s (%s)\n", kiln::to_string(error), kiln::last_error());
    return 1;
  }

  float a_data[6] = {1, 2, 3, 4, 5, 6};
  float b_data[3] = {10, 20, 30};  // broadcast along the rows of a
  float out_data[6] = {};
  kiln::DenseTensor<2> a(kiln::ScalarType::Float, {2, 3}, a_data);
  kiln::DenseTensor<1> b(kiln::ScalarType::Float, {3}, b_data);
  kiln::DenseTensor<2> out(kiln::ScalarType::Float, {2, 3}, out_data);

  const kiln::Backend backends[] = {kiln::Backend::Portable};
  kiln::Result<const kiln::Kernel*> kernel = kiln::find_kernel("aten::add.out", "", backends);
  if (!kernel.ok()) {
    std::printf("aten::add.out is not registered\n");
    return 1;
  }

  // aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
  kiln::EValue values[] = {kiln::EValue(a.tensor()), kiln::EValue(b.tensor()),
                           kiln::EValue(int64_t{2}), kiln::EValue(out.tensor())};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  kiln::KernelRuntimeContext ctx;
  if (kiln::Error error = (*kernel)->call(ctx, stack); error != kiln::Error::Ok) {
    std::printf("aten::add.out failed: %s\n", ctx.failure_message());
    return 1;
  }

  std::printf("aten::add.out(a, b, alpha=2) via %s kernel (%s):\n",
              kiln::to_string((*kernel)->backend), (*kernel)->origin);
  for (int row = 0; row < 2; ++row) {
    std::printf("  [%g, %g, %g]\n", out_data[row * 3], out_data[row * 3 + 1],
                out_data[row * 3 + 2]);
  }
  return 0;
}
