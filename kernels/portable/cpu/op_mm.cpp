// mm.out: out = self @ mat2 for 2-D matrices of one numeric dtype (not Bool).
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& mm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, mat2, "mat2") ||
      !check_tensor(ctx, out, "out")) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() == 2, InvalidArgument, out,
                        "self must be a matrix, got a %lld-D tensor of shape %s",
                        static_cast<long long>(self.dim()), format_shape(self.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, mat2.dim() == 2, InvalidArgument, out,
                        "mat2 must be a matrix, got a %lld-D tensor of shape %s",
                        static_cast<long long>(mat2.dim()), format_shape(mat2.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, self.size(1) == mat2.size(0), InvalidArgument, out,
                        "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld); "
                        "self's columns must equal mat2's rows",
                        static_cast<long long>(self.size(0)), static_cast<long long>(self.size(1)),
                        static_cast<long long>(mat2.size(0)), static_cast<long long>(mat2.size(1)));
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() == mat2.scalar_type(), InvalidArgument, out,
                        "expected m1 and m2 to have the same dtype, but got: %s != %s",
                        to_string(self.scalar_type()), to_string(mat2.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidType, out,
                        "mm is not implemented for Bool; convert the matrices to a numeric dtype");
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  if (!check_gemm_dtype(ctx, self.scalar_type(), "mm")) return out;
  const SizesType out_sizes[2] = {self.size(0), mat2.size(1)};
  if (!resize_or_fail(ctx, out, {out_sizes, 2})) return out;
  if (!check_out_apart(ctx, out, self, "self") || !check_out_apart(ctx, out, mat2, "mat2")) {
    return out;
  }
  const int64_t k = self.size(1);
  const int64_t n = mat2.size(1);
  GemmEpilogue epilogue;
  epilogue.clamp = ctx.take_output_clamp(out.scalar_type());
  gemm(ctx, self.size(0), n, k, {self.const_data_ptr(), self.scalar_type(), k, 1},
       {mat2.const_data_ptr(), mat2.scalar_type(), n, 1},
       {out.mutable_data_ptr(), out.scalar_type(), n}, epilogue);
  return out;
}

}  // namespace kiln::portable::native
