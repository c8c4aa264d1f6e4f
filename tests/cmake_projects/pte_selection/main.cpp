// Lists the operators a library selected from a .pte program registers, then runs one of them on
// the program's dtype (float) and on one the program does not use (double).
#include <cstdio>

#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/operator_registry.h"

namespace {

template <typename T>
void relu(kiln::ScalarType dtype, const char* label) {
  T in_data[2] = {-1, 2};
  T out_data[2] = {};
  kiln::DenseTensor<1> in(dtype, {2}, in_data);
  kiln::DenseTensor<1> out(dtype, {2}, out_data);
  kiln::EValue values[] = {kiln::EValue(in.tensor()), kiln::EValue(out.tensor())};
  kiln::EValue* stack[] = {&values[0], &values[1]};
  const kiln::Backend portable[] = {kiln::Backend::Portable};
  kiln::KernelRuntimeContext ctx;
  const kiln::Error error = kiln::call_operator(ctx, "aten::relu.out", stack, portable);
  if (error != kiln::Error::Ok) {
    std::printf("%s relu: %s\n", label, kiln::to_string(error));
    return;
  }
  std::printf("%s relu: %g %g\n", label, static_cast<double>(out_data[0]),
              static_cast<double>(out_data[1]));
}

}  // namespace

int main() {
  if (kiln::Error error = register_pte_ops_kernels(); error != kiln::Error::Ok) {
    std::printf("registration failed: %s (%s)\n", kiln::to_string(error), kiln::last_error());
    return 1;
  }
  std::printf("registered:");
  for (size_t i = 0; i < kiln::registered_kernel_count(); ++i) {
    std::printf(" %s", kiln::registered_kernel(i).name);
  }
  std::printf("\n");
  relu<float>(kiln::ScalarType::Float, "float");
  relu<double>(kiln::ScalarType::Double, "double");
  return 0;
}
