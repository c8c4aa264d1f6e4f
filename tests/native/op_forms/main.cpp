// Calls each custom op of custom_ops.yaml through the registry (boxed) and through Functions.h
// (typed), and feeds the unboxing a wrong tag and a missing return slot; prints the results for
// tests/test_native.py and tests/test_aten_mode.py to check.
#include <cstdio>

#include "Functions.h"
#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/operator_registry.h"

namespace {

const kiln::Backend kPortable[] = {kiln::Backend::Portable};

// Runs `name` boxed: the registry finds the kernel, its wrapper unboxes and checks `stack`.
kiln::Error call(const char* name, kiln::KernelRuntimeContext& ctx,
                 kiln::Span<kiln::EValue*> stack) {
  auto kernel = kiln::find_kernel_for_stack(name, stack, kPortable);
  return kernel.ok() ? (*kernel)->call(ctx, stack) : kernel.error();
}

void print(const char* label, kiln::Error error, const kiln::Tensor& t) {
  std::printf("%s: %s", label, kiln::to_string(error));
  const float* data = t.const_data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i) std::printf(" %g", data[i]);
  std::printf("\n");
}

void print_failure(const char* label, kiln::Error error, const kiln::KernelRuntimeContext& ctx) {
  std::printf("%s: %s: %s\n", label, kiln::to_string(error), ctx.failure_message());
}

const char* yes_no(bool value) { return value ? "yes" : "no"; }

}  // namespace

int main() {
  if (register_op_forms_kernels() != kiln::Error::Ok) return 1;
  float x_data[3] = {1, 2, 3};
  kiln::DenseTensor<1> x(kiln::ScalarType::Float, {3}, x_data);

  // In place: the wrapper stores the returned self in the return slot after the arguments.
  {
    kiln::EValue values[] = {kiln::EValue(x.tensor()), kiln::EValue(2.0), kiln::EValue()};
    kiln::EValue* stack[] = {&values[0], &values[1], &values[2]};
    kiln::KernelRuntimeContext ctx;
    print("boxed scale_", call("forms::scale_", ctx, stack), x.tensor());
    std::printf("boxed scale_ returns self: %s\n",
                yes_no(values[2].isTensor() && values[2].toTensor().const_data_ptr() == x_data));
    kiln::Tensor self = x.tensor();
    kiln::Tensor& returned = kiln::forms::scale_(ctx, self, 0.5);
    print("typed scale_", ctx.failure_state(), self);
    std::printf("typed scale_ returns self: %s\n", yes_no(&returned == &self));
    values[0] = kiln::EValue(int64_t{1});
    kiln::KernelRuntimeContext bad;
    print_failure("bad scale_", call("forms::scale_", bad, stack), bad);
  }

  // A written input: the cache, which is no out argument; nothing is returned.
  {
    float value_data[2] = {7, 8};
    float cache_data[4] = {};
    kiln::DenseTensor<1> value(kiln::ScalarType::Float, {2}, value_data);
    kiln::DenseTensor<1> cache(kiln::ScalarType::Float, {4}, cache_data);
    kiln::EValue values[] = {kiln::EValue(value.tensor()), kiln::EValue(cache.tensor()),
                             kiln::EValue(int64_t{1})};
    kiln::EValue* stack[] = {&values[0], &values[1], &values[2]};
    kiln::KernelRuntimeContext ctx;
    print("boxed update_cache", call("forms::update_cache", ctx, stack), cache.tensor());
    kiln::Tensor cache_tensor = cache.tensor();
    kiln::forms::update_cache(ctx, value.tensor(), cache_tensor, 2);
    print("typed update_cache", ctx.failure_state(), cache.tensor());
    values[2] = kiln::EValue(int64_t{3});
    kiln::KernelRuntimeContext overrun;
    print_failure("overrun update_cache", call("forms::update_cache", overrun, stack), overrun);
  }

  // float[]?: None or a list of weights.
  {
    float out_data[1] = {};
    kiln::DenseTensor<1> out(kiln::ScalarType::Float, {1}, out_data);
    const double weights[] = {1, 0, 2};
    kiln::EValue values[] = {kiln::EValue(x.tensor()), kiln::EValue(), kiln::EValue(out.tensor())};
    kiln::EValue* stack[] = {&values[0], &values[1], &values[2]};
    kiln::KernelRuntimeContext ctx;
    print("boxed weighted_sum None", call("forms::weighted_sum.out", ctx, stack), out.tensor());
    values[1] = kiln::EValue(kiln::ArrayRef<double>(weights));
    print("boxed weighted_sum list", call("forms::weighted_sum.out", ctx, stack), out.tensor());
    kiln::Tensor out_tensor = out.tensor();
    kiln::forms::weighted_sum_outf(ctx, x.tensor(), std::nullopt, out_tensor);
    print("typed weighted_sum None", ctx.failure_state(), out.tensor());
    kiln::forms::weighted_sum_outf(ctx, x.tensor(), kiln::ArrayRef<double>(weights), out_tensor);
    print("typed weighted_sum list", ctx.failure_state(), out.tensor());
    values[1] = kiln::EValue(int64_t{2});
    kiln::KernelRuntimeContext bad;
    print_failure("bad weighted_sum", call("forms::weighted_sum.out", bad, stack), bad);
  }

  // Functional: a new tensor from the context's temp allocator, stored in the return slot.
  {
    alignas(16) unsigned char temp[512];
    kiln::MemoryAllocator allocator(temp, sizeof(temp));
    kiln::EValue values[] = {kiln::EValue(x.tensor()), kiln::EValue()};
    kiln::EValue* stack[] = {&values[0], &values[1]};
    kiln::KernelRuntimeContext ctx(&allocator);
    const kiln::Error error = call("forms::doubled", ctx, stack);
    if (!values[1].isTensor()) return 2;
    print("boxed doubled", error, values[1].toTensor());
    std::printf("boxed doubled is new: %s\n",
                yes_no(values[1].toTensor().const_data_ptr() != x_data));
    kiln::Tensor result = kiln::forms::doubled(ctx, values[1].toTensor());
    print("typed doubled", ctx.failure_state(), result);
    kiln::KernelRuntimeContext bad;
    print_failure("no slot doubled", call("forms::doubled", bad, {stack, 1}), bad);
  }
  return 0;
}
