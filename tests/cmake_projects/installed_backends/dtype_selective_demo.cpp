// Runs a Float-only library compiled from the installed portable kernel sources: Float works,
// Double is refused by the unboxing.
#include <cstdio>

#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/operator_registry.h"

namespace {

template <typename T>
void add(kiln::ScalarType dtype, const char* label) {
  T a_data[3] = {1, 2, 3};
  T b_data[3] = {10, 20, 30};
  T out_data[3] = {};
  kiln::DenseTensor<1> a(dtype, {3}, a_data);
  kiln::DenseTensor<1> b(dtype, {3}, b_data);
  kiln::DenseTensor<1> out(dtype, {3}, out_data);
  kiln::EValue values[] = {kiln::EValue(a.tensor()), kiln::EValue(b.tensor()),
                           kiln::EValue(int64_t{1}), kiln::EValue(out.tensor())};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  const kiln::Backend portable[] = {kiln::Backend::Portable};
  kiln::KernelRuntimeContext ctx;
  const kiln::Error error = kiln::call_operator(ctx, "aten::add.out", stack, portable);
  if (error != kiln::Error::Ok) {
    std::printf("%s add: %s\n", label, kiln::to_string(error));
    return;
  }
  std::printf("%s add: %g %g %g\n", label, static_cast<double>(out_data[0]),
              static_cast<double>(out_data[1]), static_cast<double>(out_data[2]));
}

}  // namespace

int main() {
  if (kiln::Error error = register_float_ops_kernels(); error != kiln::Error::Ok) {
    std::printf("registration failed: %s (%s)\n", kiln::to_string(error), kiln::last_error());
    return 1;
  }
  add<float>(kiln::ScalarType::Float, "float");
  add<double>(kiln::ScalarType::Double, "double");
  return 0;
}
