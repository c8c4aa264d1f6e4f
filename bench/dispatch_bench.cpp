// Per-call cost of a 1-element add: typed call (Functions.h), boxed call with a held kernel
// pointer (unboxing only), and lookup by name + unboxing (what an interpreter pays per op).
#include <cstdio>

#include "Functions.h"
#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/clock.h"

namespace {

constexpr int kIterations = 2000000;

template <typename Body>
double ns_per_call(Body body) {
  for (int i = 0; i < kIterations / 10; ++i) body();  // warm up
  const uint64_t start = kiln::monotonic_ns();
  for (int i = 0; i < kIterations; ++i) body();
  return static_cast<double>(kiln::monotonic_ns() - start) / kIterations;
}

}  // namespace

int main() {
  if (register_bench_lib_kernels() != kiln::Error::Ok) return 1;
  float a_data[1] = {1}, b_data[1] = {2}, out_data[1] = {};
  kiln::DenseTensor<1> a(kiln::ScalarType::Float, {1}, a_data);
  kiln::DenseTensor<1> b(kiln::ScalarType::Float, {1}, b_data);
  kiln::DenseTensor<1> out(kiln::ScalarType::Float, {1}, out_data);
  kiln::Tensor out_tensor = out.tensor();
  kiln::EValue values[] = {kiln::EValue(a.tensor()), kiln::EValue(b.tensor()),
                           kiln::EValue(int64_t{1}), kiln::EValue(out.tensor())};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  const kiln::Backend backends[] = {kiln::Backend::Portable};
  kiln::KernelRuntimeContext ctx;

  const double typed = ns_per_call([&] {
    kiln::aten::add_outf(ctx, a.tensor(), b.tensor(), kiln::Scalar(int64_t{1}), out_tensor);
  });
  const kiln::Kernel* held = *kiln::find_kernel("aten::add.out", "", backends);
  const double boxed = ns_per_call([&] { (void)held->call(ctx, stack); });
  const double lookup_and_boxed = ns_per_call([&] {
    auto kernel = kiln::find_kernel("aten::add.out", "", backends);
    (void)(*kernel)->call(ctx, stack);
  });
  if (ctx.failure_state() != kiln::Error::Ok || out_data[0] != 3.0f) return 2;
  std::printf("typed_call_ns %.1f\n", typed);
  std::printf("boxed_call_ns %.1f\n", boxed);
  std::printf("lookup_and_boxed_call_ns %.1f\n", lookup_and_boxed);
  return 0;
}
