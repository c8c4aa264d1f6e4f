// bmm.out and baddbmm.out: batched matrix products (baddbmm adds beta * self) over the gemm.
#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/gemm.h"
#include "kernels/portable/cpu/util/matmul.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Checks batch1 [b, n, m] and batch2 [b, m, p] as ATen's bmm does; on success out is resized to
// [b, n, p].
bool check_batches(KernelRuntimeContext& ctx, const Tensor& batch1, const Tensor& batch2,
                   Tensor& out, const char* op) {
  if (!check_tensor(ctx, batch1, "batch1") || !check_tensor(ctx, batch2, "batch2") ||
      !check_tensor(ctx, out, "out")) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(ctx, batch1.dim() == 3, InvalidArgument, false,
                        "batch1 must be a 3D tensor, got shape %s",
                        format_shape(batch1.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, batch2.dim() == 3, InvalidArgument, false,
                        "batch2 must be a 3D tensor, got shape %s",
                        format_shape(batch2.sizes()).text);
  KILN_KERNEL_CHECK_MSG(
      ctx, batch2.size(0) == batch1.size(0) && batch2.size(1) == batch1.size(2), InvalidArgument,
      false,
      "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: "
      "[%lld, %lld].",
      static_cast<long long>(batch1.size(0)), static_cast<long long>(batch1.size(2)),
      static_cast<long long>(batch2.size(0)), static_cast<long long>(batch2.size(1)));
  KILN_KERNEL_CHECK_MSG(ctx, batch1.scalar_type() == batch2.scalar_type(), InvalidArgument, false,
                        "expected scalar type %s but found %s", to_string(batch1.scalar_type()),
                        to_string(batch2.scalar_type()));
  if (!check_not_bool(ctx, batch1.scalar_type(), op)) return false;
  if (!check_out_dtype_is(ctx, out, batch1.scalar_type())) return false;
  if (!check_gemm_dtype(ctx, batch1.scalar_type(), op)) return false;
  const SizesType sizes[3] = {batch1.size(0), batch1.size(1), batch2.size(2)};
  return resize_or_fail(ctx, out, {sizes, 3});
}

// out[i] = alpha * batch1[i] batch2[i] + beta * c[i] for every batch i; c_strides are the
// element strides of c expanded to out's shape (c may be null).
void batched_gemm(const Tensor& batch1, const Tensor& batch2, Tensor& out, const void* c,
                  ScalarType c_type, const int64_t* c_strides, const Scalar& alpha,
                  const Scalar& beta) {
  const int64_t batches = batch1.size(0);
  const int64_t n = batch1.size(1);
  const int64_t m = batch1.size(2);
  const int64_t p = batch2.size(2);
  const ScalarType dtype = batch1.scalar_type();
  const size_t size = element_size(dtype);
  const size_t c_size = element_size(c_type);
  for (int64_t i = 0; i < batches; ++i) {
    GemmEpilogue epilogue;
    epilogue.alpha = alpha;
    epilogue.beta = beta;
    if (c != nullptr) {
      epilogue.c = {static_cast<const char*>(c) + i * c_strides[0] * c_size, c_type, c_strides[1],
                    c_strides[2]};
    }
    gemm(n, p, m,
         {static_cast<const char*>(batch1.const_data_ptr()) + i * n * m * size, dtype, m, 1},
         {static_cast<const char*>(batch2.const_data_ptr()) + i * m * p * size, dtype, p, 1},
         {static_cast<char*>(out.mutable_data_ptr()) + i * n * p * size, dtype, p}, epilogue);
  }
}

}  // namespace

Tensor& bmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  if (!check_batches(ctx, self, mat2, out, "bmm")) return out;
  batched_gemm(self, mat2, out, nullptr, self.scalar_type(), nullptr, Scalar(int64_t{1}),
               Scalar(int64_t{0}));
  return out;
}

Tensor& baddbmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& batch1,
                    const Tensor& batch2, const Scalar& beta, const Scalar& alpha, Tensor& out) {
  if (!check_tensor(ctx, self, "self")) return out;
  KILN_KERNEL_CHECK_MSG(
      ctx, self.scalar_type() == batch1.scalar_type() && self.scalar_type() == batch2.scalar_type(),
      InvalidArgument, out, "Input dtypes must be the same, got: input %s, batch1: %s, batch2: %s",
      to_string(self.scalar_type()), to_string(batch1.scalar_type()),
      to_string(batch2.scalar_type()));
  if (batch1.dim() == 3 && batch2.dim() == 3) {
    const SizesType target[3] = {batch1.size(0), batch1.size(1), batch2.size(2)};
    int64_t strides[3];
    if (!expand_strides(ctx, self.sizes(), {target, 3}, strides)) return out;
  }
  if (!check_batches(ctx, batch1, batch2, out, "baddbmm")) return out;
  int64_t c_strides[3];
  if (!expand_strides(ctx, self.sizes(), out.sizes(), c_strides)) return out;
  batched_gemm(batch1, batch2, out, self.const_data_ptr(), self.scalar_type(), c_strides, alpha,
               beta);
  return out;
}

}  // namespace kiln::portable::native
