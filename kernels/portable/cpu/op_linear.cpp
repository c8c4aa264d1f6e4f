// linear.out: out = input @ weight^T + bias over the gemm, with matmul's 1-D rules.
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"
#include "kernels/portable/cpu/util/linalg/matmul.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Bias broadcast over out viewed as [rows, n]: row i is the multi-index of out's leading dims.
struct BiasRows {
  const void* data;
  ScalarType dtype;
  ScalarType out_type;
  int64_t rank;  // leading dims of out (all of out's dims when the weight is 1-D)
  SizesType sizes[kTensorDimensionLimit];
  int64_t strides[kTensorDimensionLimit + 1];  // the last one is the column stride
};

void load_bias_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst) {
  const BiasRows& bias = *static_cast<const BiasRows*>(user);
  int64_t offset = col0 * bias.strides[bias.rank];
  for (int64_t d = bias.rank - 1; d >= 0; --d) {
    offset += row % bias.sizes[d] * bias.strides[d];
    row /= bias.sizes[d];
  }
  const char* src = static_cast<const char*>(bias.data) + offset * element_size(bias.dtype);
  dispatch_compute_type(bias.out_type, [&](auto tag) {
    using C = typename decltype(tag)::type;
    load_row<C>(src, bias.dtype, bias.strides[bias.rank], n, static_cast<C*>(dst));
  });
}

}  // namespace

Tensor& linear_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                   const std::optional<Tensor>& bias, Tensor& out) {
  if (!check_tensor(ctx, input, "input") || !check_tensor(ctx, weight, "weight") ||
      !check_tensor(ctx, out, "out") || (bias.has_value() && !check_tensor(ctx, *bias, "bias"))) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, input.dim() >= 1 && weight.dim() >= 1, InvalidArgument, out,
                        "both arguments to linear need to be at least 1D, but they are %lldD and "
                        "%lldD",
                        static_cast<long long>(input.dim()), static_cast<long long>(weight.dim()));
  KILN_KERNEL_CHECK_MSG(ctx, weight.dim() <= 2, InvalidArgument, out,
                        "t() expects a tensor with <= 2 dimensions, but weight is %lldD",
                        static_cast<long long>(weight.dim()));
  KILN_KERNEL_CHECK_MSG(ctx, !(bias.has_value() && weight.dim() == 1 && input.dim() == 2),
                        InvalidArgument, out, "mat2 must be a matrix, got 1-D tensor");
  const int64_t k = input.size(-1);
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < input.dim(); ++d) rows *= input.size(d);
  const bool matrix_weight = weight.dim() == 2;
  const int64_t n = matrix_weight ? weight.size(0) : 1;
  KILN_KERNEL_CHECK_MSG(ctx, weight.size(-1) == k, InvalidArgument, out,
                        "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                        static_cast<long long>(rows), static_cast<long long>(k),
                        static_cast<long long>(weight.size(-1)), static_cast<long long>(n));
  const ScalarType dtype = input.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, weight.scalar_type() == dtype, InvalidArgument, out,
                        "expected m1 and m2 to have the same dtype, but got: %s != %s",
                        to_string(dtype), to_string(weight.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, !bias.has_value() || bias->scalar_type() == dtype, InvalidArgument,
                        out, "self and mat2 must have the same dtype, but got %s and %s",
                        bias.has_value() ? to_string(bias->scalar_type()) : "", to_string(dtype));
  if (!check_not_bool(ctx, dtype, "addmm_impl_cpu_")) return out;
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  if (!check_gemm_dtype(ctx, dtype, "linear")) return out;
  SizesType sizes[kTensorDimensionLimit];
  int64_t rank = input.dim() - 1;
  for (int64_t d = 0; d < rank; ++d) sizes[d] = input.size(d);
  if (matrix_weight) sizes[rank++] = n;
  BiasRows bias_rows{};
  if (bias.has_value()) {
    int64_t strides[kTensorDimensionLimit];
    if (!expand_strides(ctx, bias->sizes(), {sizes, static_cast<size_t>(rank)}, strides)) {
      return out;
    }
    bias_rows.data = bias->const_data_ptr();
    bias_rows.dtype = bias->scalar_type();
    bias_rows.out_type = dtype;
    bias_rows.rank = matrix_weight ? rank - 1 : rank;
    for (int64_t d = 0; d < bias_rows.rank; ++d) {
      bias_rows.sizes[d] = sizes[d];
      bias_rows.strides[d] = strides[d];
    }
    bias_rows.strides[bias_rows.rank] = matrix_weight ? strides[rank - 1] : 0;
  }
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)})) return out;
  if (out.numel() == 0) return out;
  GemmEpilogue epilogue;
  if (bias.has_value()) {
    epilogue.beta = Scalar(int64_t{1});
    epilogue.c = {nullptr, dtype, 0, 0, load_bias_row, &bias_rows};
    epilogue.c.data = &bias_rows;  // marks c present; rows come from the loader
  }
  epilogue.clamp = ctx.take_output_clamp(dtype);
  gemm(ctx, rows, n, k, {input.const_data_ptr(), dtype, k, 1},
       {weight.const_data_ptr(), dtype, 1, matrix_weight ? k : 0},
       {out.mutable_data_ptr(), dtype, n}, epilogue);
  return out;
}

}  // namespace kiln::portable::native
