// scatter.src_out, .value_out, .reduce_out and .value_reduce_out: self with src (or a value)
// written, added or multiplied in at index positions along a dim.
#include <cstdint>
#include <string_view>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "kernels/portable/cpu/util/index/scatter.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Parses scatter's `reduce` argument; false after ctx.fail.
bool parse_reduce(KernelRuntimeContext& ctx, std::string_view reduce, ScatterReduce* mode) {
  if (reduce == "add") {
    *mode = ScatterReduce::kAdd;
  } else if (reduce == "multiply") {
    *mode = ScatterReduce::kMultiply;
  } else {
    ctx.fail(Error::InvalidArgument,
             "reduce argument must be either add or multiply (got \"%.*s\")",
             static_cast<int>(reduce.size()), reduce.data());
    return false;
  }
  return true;
}

// The value overload: `value` converted to self's dtype (checked only when some element takes
// it: ATen converts inside its loop, so an empty index never checks it).
Tensor& scatter_value_impl(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                           const Tensor& index, const Scalar& value, ScatterReduce mode,
                           Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, index.numel() == 0 || fill_value_fits(value, dtype), InvalidArgument,
                        out, "value cannot be converted to type %s without overflow: %s",
                        to_string(dtype), format_scalar(value).text);
  alignas(8) unsigned char converted[8] = {};
  store_fill_value(value, dtype, converted);
  return scatter_into(ctx, self, dim, index, nullptr, converted, mode, out);
}

}  // namespace

Tensor& scatter_src_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out) {
  if (!check_scatter_layouts(ctx, self, index, &src, out)) return out;
  return scatter_into(ctx, self, dim, index, &src, nullptr, ScatterReduce::kAssign, out);
}

Tensor& scatter_value_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                          const Tensor& index, const Scalar& value, Tensor& out) {
  if (!check_scatter_layouts(ctx, self, index, nullptr, out)) return out;
  return scatter_value_impl(ctx, self, dim, index, value, ScatterReduce::kAssign, out);
}

Tensor& scatter_reduce_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                           const Tensor& index, const Tensor& src, std::string_view reduce,
                           Tensor& out) {
  ScatterReduce mode = ScatterReduce::kAssign;
  if (!check_scatter_layouts(ctx, self, index, &src, out) || !parse_reduce(ctx, reduce, &mode))
    return out;
  return scatter_into(ctx, self, dim, index, &src, nullptr, mode, out);
}

Tensor& scatter_value_reduce_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                 const Tensor& index, const Scalar& value, std::string_view reduce,
                                 Tensor& out) {
  ScatterReduce mode = ScatterReduce::kAssign;
  if (!check_scatter_layouts(ctx, self, index, nullptr, out) || !parse_reduce(ctx, reduce, &mode)) {
    return out;
  }
  return scatter_value_impl(ctx, self, dim, index, value, mode, out);
}

}  // namespace kiln::portable::native
