// The runtime with no kernels: registry, lookup, unboxing checks and the missing-op report.
#include <cstdio>

#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/kernel/unbox.h"

int main() {
  float data[2] = {1, 2};
  kiln::DenseTensor<1> tensor(kiln::ScalarType::Float, {2}, data);
  kiln::EValue value(tensor.tensor());
  kiln::EValue* stack[] = {&value};
  const kiln::ArgSpec specs[] = {{"self", kiln::ArgKind::Tensor}};
  kiln::KernelRuntimeContext ctx;
  const kiln::Error checked = kiln::check_arguments(ctx, "x::y.out", stack, specs);
  const kiln::Backend backends[] = {kiln::Backend::Portable};
  const kiln::OperatorRequest requests[] = {{"aten::add.out", nullptr}};
  kiln::MissingOperator missing[1];
  const size_t count = kiln::find_missing_operators(requests, backends, missing);
  std::printf("%s %zu\n", kiln::to_string(checked), count);
  return 0;
}
