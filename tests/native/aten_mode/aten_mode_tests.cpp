// ATen-mode checks of Kiln's API on libtorch: prints one "<name>: ok" or "<name>: FAIL ..." line
// per check for tests/test_aten_mode.py, which also reads the missing-operator log.
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>

#include <cstdio>
#include <cstring>
#include <utility>

#include "Functions.h"
#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/kernel_key.h"
#include "runtime/kernel/operator_registry.h"

namespace {

int failures = 0;

void check(const char* name, bool ok, const char* detail = "") {
  std::printf("%s: %s%s\n", name, ok ? "ok" : "FAIL ", ok ? "" : detail);
  if (!ok) ++failures;
}

void evalue_holds_a_tensor_reference() {
  at::Tensor t = at::ones({2});
  bool ok = t.use_count() == 1;
  {
    kiln::EValue value(t);
    ok = ok && t.use_count() == 2 && value.isTensor() && value.toTensor().is_same(t);
    kiln::EValue copy = value;
    ok = ok && t.use_count() == 3;
    kiln::EValue moved = std::move(copy);
    ok = ok && t.use_count() == 3 && copy.isNone() && moved.toTensor().is_same(t);
    value = kiln::EValue(int64_t{7});
    ok = ok && t.use_count() == 2 && value.toInt() == 7;
    moved = value;
    ok = ok && t.use_count() == 1 && moved.toInt() == 7;
    kiln::EValue scalar(kiln::Scalar(2.5));
    ok = ok && scalar.isDouble() && scalar.toScalar().toDouble() == 2.5;
  }
  check("evalue", ok && t.use_count() == 1);
}

void registry_holds_libtorch_kernels() {
  const kiln::Backend portable[] = {kiln::Backend::Portable};
  auto kernel = kiln::find_kernel("aten::add.out", "", portable);
  check("registry", kernel.ok() && std::strcmp((*kernel)->origin, "libtorch") == 0 &&
                        kiln::registered_kernel_count() == 5);
}

void functions_h_calls_libtorch() {
  float a_data[6] = {1, 2, 3, 4, 5, 6};
  float b_data[3] = {10, 20, 30};
  float out_data[6] = {};
  kiln::DenseTensor<2> a(kiln::ScalarType::Float, {2, 3}, a_data);
  kiln::DenseTensor<1> b(kiln::ScalarType::Float, {3}, b_data);
  kiln::DenseTensor<2> out(kiln::ScalarType::Float, {2, 3}, out_data);
  kiln::KernelRuntimeContext ctx;
  kiln::Tensor out_tensor = out.tensor();
  kiln::aten::add_outf(ctx, a.tensor(), b.tensor(), 2, out_tensor);
  check("typed add",
        ctx.failure_state() == kiln::Error::Ok && out_data[0] == 21 && out_data[5] == 66);

  at::Tensor values = at::empty({0});
  at::Tensor indices = at::empty({0}, at::kLong);
  auto [max_values, max_indices] = kiln::aten::max_outf(ctx, a.tensor(), 1, false, values, indices);
  check("typed max (two outs)", ctx.failure_state() == kiln::Error::Ok &&
                                    max_values.equal(at::tensor({3.0f, 6.0f})) &&
                                    max_indices.equal(at::tensor({2, 2}, at::kLong)));

  const kiln::Tensor parts[] = {at::ones({2}), at::zeros({1})};
  at::Tensor joined = at::empty({0});
  kiln::aten::cat_outf(ctx, kiln::ArrayRef<kiln::Tensor>(parts, 2), 0, joined);
  check("typed cat (Tensor[])",
        ctx.failure_state() == kiln::Error::Ok && joined.equal(at::tensor({1.0f, 1.0f, 0.0f})));

  const std::optional<kiln::Tensor> where[] = {at::tensor({2, 0}, at::kLong)};
  at::Tensor picked = at::empty({0});
  kiln::aten::index_outf(ctx, at::arange(3.0),
                         kiln::ArrayRef<std::optional<kiln::Tensor>>(where, 1), picked);
  check("typed index (Tensor?[])", ctx.failure_state() == kiln::Error::Ok &&
                                       picked.equal(at::tensor({2.0, 0.0}, at::kDouble)));

  const int64_t dims[] = {0};
  at::Tensor summed = at::empty({0});
  kiln::aten::sum_outf(ctx, a.tensor(), kiln::IntArrayRef(dims, 1), false, std::nullopt, summed);
  check("typed sum (int[1]?)",
        ctx.failure_state() == kiln::Error::Ok && summed.equal(at::tensor({5.0f, 7.0f, 9.0f})));
}

void libtorch_errors_become_failures() {
  kiln::EValue values[] = {kiln::EValue(at::ones({2})), kiln::EValue(at::ones({3})),
                           kiln::EValue(int64_t{1}), kiln::EValue(at::empty({0}))};
  kiln::EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  const kiln::Backend portable[] = {kiln::Backend::Portable};
  auto kernel = kiln::find_kernel("aten::add.out", "", portable);
  kiln::KernelRuntimeContext ctx;
  const kiln::Error error = (*kernel)->call(ctx, stack);
  std::printf("error message: %s\n", ctx.failure_message());
  check("error", error == kiln::Error::InvalidArgument &&
                     std::strstr(ctx.failure_message(), "must match the size") != nullptr &&
                     std::strstr(ctx.failure_message(), "Exception raised from") == nullptr);

  kiln::EValue bad[] = {kiln::EValue(at::ones({2})), kiln::EValue(int64_t{1}),
                        kiln::EValue(int64_t{1}), kiln::EValue(at::empty({0}))};
  kiln::EValue* bad_stack[] = {&bad[0], &bad[1], &bad[2], &bad[3]};
  kiln::KernelRuntimeContext bad_ctx;
  check("unboxing", (*kernel)->call(bad_ctx, bad_stack) == kiln::Error::InvalidProgram);
}

void kernel_key_reads_dim_order_from_strides() {
  kiln::EValue values[] = {kiln::EValue(at::ones({2, 3}).t()), kiln::EValue(at::ones({3}))};
  kiln::EValue* stack[] = {&values[0], &values[1]};
  char key[64];
  const bool ok = kiln::build_kernel_key(stack, key, sizeof(key)) == kiln::Error::Ok;
  check("kernel key", ok && std::strcmp(key, "v1/6;1,0|6;0") == 0, key);
}

void resize_stays_within_caller_memory() {
  float data[2] = {};
  kiln::DenseTensor<1> small(kiln::ScalarType::Float, {2}, data);
  kiln::Tensor tensor = small.tensor();
  kiln::KernelRuntimeContext ctx;
  const int64_t bigger[] = {4};
  const bool grew = kiln::resize_or_fail(ctx, tensor, kiln::ArrayRef<int64_t>(bigger, 1));
  check("resize", !grew && ctx.failure_state() == kiln::Error::NotSupported);
}

void missing_operators_are_reported() {
  const kiln::OperatorRequest requests[] = {{"aten::add.out", nullptr}, {"aten::mul.out", nullptr}};
  kiln::MissingOperator missing[2];
  const kiln::Backend portable[] = {kiln::Backend::Portable};
  const size_t count = kiln::find_missing_operators(requests, portable, missing);
  check("missing operators",
        count == 1 && missing[0].index == 1 && std::strcmp(missing[0].name, "aten::mul.out") == 0);
}

}  // namespace

int main() {
  if (register_aten_ops_kernels() != kiln::Error::Ok) return 1;
  evalue_holds_a_tensor_reference();
  registry_holds_libtorch_kernels();
  functions_h_calls_libtorch();
  libtorch_errors_become_failures();
  kernel_key_reads_dim_order_from_strides();
  resize_stays_within_caller_memory();
  missing_operators_are_reported();
  std::printf("%d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
