// any and all (.out over one dim, .dims_out over a list, .all_out over everything): Bool out, or
// Byte out holding 0/1.
#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/reduce_select.h"

namespace kiln::portable::native {
namespace {

// `dims` None reduces every dim; an empty list reduces none (unlike sum).
Tensor& any_all(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dims,
                bool keepdim, bool any, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  const ScalarType out_type = out.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, out_type == ScalarType::Bool || out_type == ScalarType::Byte,
                        InvalidArgument, out,
                        "%s only supports bool tensor for result, got: %s; pass a Bool out "
                        "tensor",
                        any ? "any" : "all", to_string(out_type));
  DimMask mask = 0;
  if (!dims.has_value() || !dims->empty()) {
    if (!make_dim_mask(ctx, dims, self.dim(), &mask)) return out;
  }
  SizesType out_sizes[kTensorDimensionLimit];
  const size_t out_dim = reduced_shape(self.sizes(), mask, keepdim, out_sizes);
  if (!resize_or_fail(ctx, out, {out_sizes, out_dim})) return out;
  SelectOptions options;
  options.max = any;
  options.nonzero = true;
  // ATen computes a Byte result on the input cast to Byte (so 0.5 and 256 count as zero).
  options.via_byte = out_type == ScalarType::Byte;
  options.values = &out;
  select_reduce(self, mask, options);
  return out;
}

}  // namespace

Tensor& any_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                Tensor& out) {
  return any_all(ctx, self, IntArrayRef(&dim, 1), keepdim, /*any=*/true, out);
}

Tensor& any_dims_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                     bool keepdim, Tensor& out) {
  return any_all(ctx, self, dim, keepdim, /*any=*/true, out);
}

Tensor& any_all_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return any_all(ctx, self, std::nullopt, false, /*any=*/true, out);
}

Tensor& all_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                Tensor& out) {
  return any_all(ctx, self, IntArrayRef(&dim, 1), keepdim, /*any=*/false, out);
}

Tensor& all_dims_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                     bool keepdim, Tensor& out) {
  return any_all(ctx, self, dim, keepdim, /*any=*/false, out);
}

Tensor& all_all_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return any_all(ctx, self, std::nullopt, false, /*any=*/false, out);
}

}  // namespace kiln::portable::native
