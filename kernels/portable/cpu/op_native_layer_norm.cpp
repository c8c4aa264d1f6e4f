// native_layer_norm.out: normalises over the trailing `normalized_shape` dims; out1/out2 get the
// mean and 1/sqrt(var + eps) of each row, shaped like the input with those dims set to 1.
#include <tuple>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/norm/normalization.h"

namespace kiln::portable::native {
namespace {

// The affine params must have exactly the normalized shape.
bool check_param(KernelRuntimeContext& ctx, const std::optional<Tensor>& param, const char* name,
                 IntArrayRef normalized_shape) {
  if (!param.has_value()) return true;
  if (!check_tensor(ctx, *param, name)) return false;
  bool same = param->dim() == static_cast<int64_t>(normalized_shape.size());
  for (size_t d = 0; same && d < normalized_shape.size(); ++d) {
    same = param->size(d) == normalized_shape[d];
  }
  KILN_KERNEL_CHECK_MSG(ctx, same, InvalidArgument, false,
                        "Expected %s to be of same shape as normalized_shape, but got %s of "
                        "shape %s; pass a %s with the normalized shape",
                        name, name, format_shape(param->sizes()).text, name);
  return true;
}

}  // namespace

std::tuple<Tensor&, Tensor&, Tensor&> native_layer_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, IntArrayRef normalized_shape,
    const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, double eps,
    Tensor& out0, Tensor& out1, Tensor& out2) {
  std::tuple<Tensor&, Tensor&, Tensor&> result(out0, out1, out2);
  if (!check_tensor(ctx, input, "input") || !check_tensor(ctx, out0, "out0") ||
      !check_tensor(ctx, out1, "out1") || !check_tensor(ctx, out2, "out2")) {
    return result;
  }
  const int64_t norm_dims = static_cast<int64_t>(normalized_shape.size());
  KILN_KERNEL_CHECK_MSG(ctx, norm_dims >= 1, InvalidArgument, result,
                        "Expected normalized_shape to be at least 1-dimensional, i.e., "
                        "containing at least one element, but got normalized_shape = []");
  if (!check_param(ctx, weight, "weight", normalized_shape) ||
      !check_param(ctx, bias, "bias", normalized_shape)) {
    return result;
  }
  const int64_t axis = input.dim() - norm_dims;
  bool matches = axis >= 0;
  for (int64_t d = 0; matches && d < norm_dims; ++d) {
    matches = input.size(axis + d) == normalized_shape[d];
  }
  KILN_KERNEL_CHECK_MSG(ctx, matches, InvalidArgument, result,
                        "Given normalized_shape=%s, expected input with shape [*, %s], but got "
                        "input of size%s",
                        format_shape({normalized_shape.data(), normalized_shape.size()}).text,
                        format_shape({normalized_shape.data(), normalized_shape.size()}).text,
                        format_shape(input.sizes()).text);
  const ScalarType dtype = input.scalar_type();
  const std::optional<Tensor> norm_params[2] = {weight, bias};
  ScalarType stat_type = dtype;
  if (!norm_param_types(ctx, "LayerNormKernelImpl", dtype, norm_params, 2, &stat_type))
    return result;
  if (!check_out_dtype_is(ctx, out0, dtype) || !check_out_dtype_is(ctx, out1, stat_type) ||
      !check_out_dtype_is(ctx, out2, stat_type)) {
    return result;
  }
  SizesType stat_sizes[kTensorDimensionLimit];
  int64_t rows = 1;
  int64_t row_size = 1;
  for (int64_t d = 0; d < input.dim(); ++d) {
    stat_sizes[d] = d < axis ? input.size(d) : 1;
    (d < axis ? rows : row_size) *= input.size(d);
  }
  const size_t rank = input.dim();
  if (!resize_or_fail(ctx, out0, input.sizes()) || !resize_or_fail(ctx, out1, {stat_sizes, rank}) ||
      !resize_or_fail(ctx, out2, {stat_sizes, rank})) {
    return result;
  }
  const AffineParams params = AffineParams::of(weight, bias);
  const size_t element = input.element_size();
  const char* src = static_cast<const char*>(input.const_data_ptr());
  char* dst = static_cast<char*>(out0.mutable_data_ptr());
  parallel_for(ctx, 0, rows, items_grain(row_size), [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const RowStats stats = RowStats::of(src + r * row_size * element, dtype, row_size, eps);
      normalize_row(src + r * row_size * element, dst + r * row_size * element, dtype, row_size,
                    stats.mean, stats.rstd, params, 0);
      stats.store(out1, out2, r);
    }
  });
  return result;
}

}  // namespace kiln::portable::native
