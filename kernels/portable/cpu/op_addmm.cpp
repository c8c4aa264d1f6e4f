// addmm.out: out = beta * self + alpha * (mat1 @ mat2), self broadcast to the product's shape.
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"
#include "kernels/portable/cpu/util/linalg/matmul.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& addmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat1,
                  const Tensor& mat2, const Scalar& beta, const Scalar& alpha, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, mat1, "mat1") ||
      !check_tensor(ctx, mat2, "mat2") || !check_tensor(ctx, out, "out")) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, mat1.dim() == 2, InvalidArgument, out,
                        "mat1 must be a matrix, got %lld-D tensor",
                        static_cast<long long>(mat1.dim()));
  KILN_KERNEL_CHECK_MSG(ctx, mat2.dim() == 2, InvalidArgument, out,
                        "mat2 must be a matrix, got %lld-D tensor",
                        static_cast<long long>(mat2.dim()));
  KILN_KERNEL_CHECK_MSG(ctx, mat1.size(1) == mat2.size(0), InvalidArgument, out,
                        "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                        static_cast<long long>(mat1.size(0)), static_cast<long long>(mat1.size(1)),
                        static_cast<long long>(mat2.size(0)), static_cast<long long>(mat2.size(1)));
  const SizesType sizes[2] = {mat1.size(0), mat2.size(1)};
  int64_t c_strides[2];
  if (!expand_strides(ctx, self.sizes(), {sizes, 2}, c_strides)) return out;
  KILN_KERNEL_CHECK_MSG(ctx, mat1.scalar_type() == mat2.scalar_type(), InvalidArgument, out,
                        "expected m1 and m2 to have the same dtype, but got: %s != %s",
                        to_string(mat1.scalar_type()), to_string(mat2.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() == mat2.scalar_type(), InvalidArgument, out,
                        "self and mat2 must have the same dtype, but got %s and %s",
                        to_string(self.scalar_type()), to_string(mat2.scalar_type()));
  if (!check_not_bool(ctx, mat1.scalar_type(), "addmm_impl_cpu_")) return out;
  if (!check_out_dtype_is(ctx, out, mat1.scalar_type())) return out;
  if (!check_gemm_dtype(ctx, mat1.scalar_type(), "addmm")) return out;
  if (!resize_or_fail(ctx, out, {sizes, 2})) return out;
  // (out may be self: each element of self is read only to write that element.)
  if (!check_out_apart(ctx, out, mat1, "mat1") || !check_out_apart(ctx, out, mat2, "mat2")) {
    return out;
  }
  const ScalarType dtype = mat1.scalar_type();
  const int64_t k = mat1.size(1);
  const int64_t n = mat2.size(1);
  GemmEpilogue epilogue;
  epilogue.alpha = alpha;
  epilogue.beta = beta;
  epilogue.c = {self.const_data_ptr(), dtype, c_strides[0], c_strides[1]};
  epilogue.clamp = ctx.take_output_clamp(dtype);
  gemm(ctx, sizes[0], n, k, {mat1.const_data_ptr(), dtype, k, 1},
       {mat2.const_data_ptr(), dtype, n, 1}, {out.mutable_data_ptr(), dtype, n}, epilogue);
  return out;
}

}  // namespace kiln::portable::native
