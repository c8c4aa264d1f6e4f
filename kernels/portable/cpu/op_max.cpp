// max.dim_max, min.dim_min (values and first indices along a dim) and max/min.unary_out.
#include <tuple>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/convert.h"
#include "kernels/portable/cpu/util/reduce_select.h"
#include "kernels/portable/cpu/util/scalar_util.h"
#include "runtime/core/dense_tensor.h"

namespace kiln::portable::native {
namespace {

std::tuple<Tensor&, Tensor&> max_min_dim(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                         bool keepdim, bool max, Tensor& values, Tensor& indices) {
  std::tuple<Tensor&, Tensor&> result(values, indices);
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, values, "values") ||
      !check_tensor(ctx, indices, "indices")) {
    return result;
  }
  if (!check_out_dtype_is(ctx, values, self.scalar_type())) return result;
  if (!check_out_dtype_is(ctx, indices, ScalarType::Long)) return result;
  DimMask mask = 0;
  if (!make_dim_mask(ctx, IntArrayRef(&dim, 1), self.dim(), &mask)) return result;
  if (!check_nonempty_reduction(ctx, self, mask, false, max ? "max" : "min")) return result;
  SizesType out_sizes[kTensorDimensionLimit];
  const size_t out_dim = reduced_shape(self.sizes(), mask, keepdim, out_sizes);
  if (!resize_or_fail(ctx, values, {out_sizes, out_dim}) ||
      !resize_or_fail(ctx, indices, {out_sizes, out_dim})) {
    return result;
  }
  SelectOptions options;
  options.max = max;
  options.values = &values;
  options.indices = &indices;
  select_reduce(self, mask, options);
  return result;
}

// The whole tensor; an empty one gives the identity (-inf for max), as ATen does.
Tensor& max_min_all(KernelRuntimeContext& ctx, const Tensor& self, bool max, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, can_cast(self.scalar_type(), out.scalar_type()), InvalidArgument, out,
                        "Expected canCast(%s, %s) to be true, but got false; pass an out tensor "
                        "of dtype %s",
                        to_string(self.scalar_type()), to_string(out.scalar_type()),
                        to_string(self.scalar_type()));
  if (!resize_or_fail(ctx, out, {})) return out;
  DimMask mask = 0;
  if (!make_dim_mask(ctx, std::nullopt, self.dim(), &mask)) return out;
  // The value is found in self's dtype, then written like a scalar fill: an integer that does not
  // fit out's dtype is an error, as in ATen.
  alignas(8) unsigned char value[8] = {};
  DenseTensor<0> selected(self.scalar_type(), {}, value);
  Tensor selected_tensor = selected.tensor();
  SelectOptions options;
  options.max = max;
  options.values = &selected_tensor;
  select_reduce(self, mask, options);
  if (is_integral_type(self.scalar_type()) && is_integral_type(out.scalar_type())) {
    int64_t integer = 0;
    convert_element(value, self.scalar_type(), &integer, ScalarType::Long);
    KILN_KERNEL_CHECK_MSG(ctx, scalar_fits(Scalar(integer), out.scalar_type()), InvalidArgument,
                          out,
                          "value cannot be converted to type %s without overflow: %lld; pass an "
                          "out tensor of dtype %s",
                          to_string(out.scalar_type()), static_cast<long long>(integer),
                          to_string(self.scalar_type()));
  }
  convert_element(value, self.scalar_type(), out.mutable_data_ptr(), out.scalar_type());
  return out;
}

}  // namespace

std::tuple<Tensor&, Tensor&> max_dim_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                         bool keepdim, Tensor& max, Tensor& max_values) {
  return max_min_dim(ctx, self, dim, keepdim, /*max=*/true, max, max_values);
}

std::tuple<Tensor&, Tensor&> min_dim_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                         bool keepdim, Tensor& min, Tensor& min_indices) {
  return max_min_dim(ctx, self, dim, keepdim, /*max=*/false, min, min_indices);
}

Tensor& max_unary_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return max_min_all(ctx, self, /*max=*/true, out);
}

Tensor& min_unary_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return max_min_all(ctx, self, /*max=*/false, out);
}

}  // namespace kiln::portable::native
