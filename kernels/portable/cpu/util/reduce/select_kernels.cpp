// The shared bodies of the selecting reductions: any/all, amax/amin, argmax/argmin, max/min.
#include "kernels/portable/cpu/util/reduce/select_kernels.h"

#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/reduce/select.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/core/dim_order.h"

namespace kiln::portable {
namespace {

// any/all of Bool rows into a Bool out, over the last dim of a contiguous input (the safe
// softmax that scaled_dot_product_attention decomposes into tests each row of its attention for
// a whole masked row): each row scanned eight bytes at a time. False when the call is not one of
// those, for select_reduce.
bool bool_rows(const Tensor& self, DimMask mask, bool any, Tensor& out) {
  const int64_t dims = self.dim();
  if (self.scalar_type() != ScalarType::Bool || out.scalar_type() != ScalarType::Bool ||
      dims == 0 || mask != (DimMask{1} << (dims - 1)) || !is_default_dim_order(self.dim_order()) ||
      !is_default_dim_order(out.dim_order())) {
    return false;
  }
  const int64_t length = self.size(dims - 1);
  const int64_t rows = length == 0 ? out.numel() : self.numel() / length;
  const auto* in = static_cast<const uint8_t*>(self.const_data_ptr());
  auto* result = static_cast<bool*>(out.mutable_data_ptr());
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* row = in + r * length;
    if (!any) {  // all: no zero byte
      result[r] = length == 0 || std::memchr(row, 0, static_cast<size_t>(length)) == nullptr;
      continue;
    }
    uint64_t found = 0;
    int64_t i = 0;
    for (; i + 8 <= length; i += 8) {
      uint64_t word;
      std::memcpy(&word, row + i, sizeof(word));
      found |= word;
    }
    for (; i < length; ++i) found |= row[i];
    result[r] = found != 0;
  }
  return true;
}

}  // namespace

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
  if (!resize_reduced(ctx, self, mask, keepdim, out)) return out;
  SelectOptions options;
  options.max = any;
  options.nonzero = true;
  // ATen computes a Byte result on the input cast to Byte (so 0.5 and 256 count as zero), except
  // for a one-element input, which it tests for nonzero directly.
  options.via_byte = out_type == ScalarType::Byte && self.numel() != 1;
  options.values = &out;
  if (!bool_rows(self, mask, any, out)) select_reduce(self, mask, options);
  return out;
}

Tensor& amax_amin(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                  bool max, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == self.scalar_type(), InvalidArgument, out,
                        "Expected the dtype for input and out to match, but got %s for input's "
                        "dtype and %s for out's dtype; pass an out tensor of dtype %s",
                        to_string(self.scalar_type()), to_string(out.scalar_type()),
                        to_string(self.scalar_type()));
  DimMask mask = 0;
  if (!make_dim_mask(ctx, dim, self.dim(), &mask)) return out;
  if (!check_nonempty_reduction(ctx, self, mask, dim.empty(), max ? "amax" : "amin")) return out;
  if (!resize_reduced(ctx, self, mask, keepdim, out)) return out;
  SelectOptions options;
  options.max = max;
  options.values = &out;
  select_reduce(self, mask, options);
  return out;
}

Tensor& arg_max_min(KernelRuntimeContext& ctx, const Tensor& self, std::optional<int64_t> dim,
                    bool keepdim, bool max, Tensor& out) {
  const char* op = max ? "argmax" : "argmin";
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidType, out,
                        "%s(): does not support bool input; convert it to an integer dtype", op);
  if (!check_out_dtype_is(ctx, out, ScalarType::Long)) return out;
  DimMask mask = 0;
  if (dim.has_value()) {
    const int64_t d = *dim;
    if (!make_dim_mask(ctx, IntArrayRef(&d, 1), self.dim(), &mask)) return out;
  } else if (!make_dim_mask(ctx, std::nullopt, self.dim(), &mask)) {
    return out;
  }
  if (!check_nonempty_reduction(ctx, self, mask, !dim.has_value(), op)) return out;
  // Without a dim the input is flattened: keepdim keeps every dim as 1.
  if (!resize_reduced(ctx, self, mask, keepdim, out)) return out;
  SelectOptions options;
  options.max = max;
  options.indices = &out;
  select_reduce(self, mask, options);
  return out;
}

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
  if (!resize_reduced(ctx, self, mask, keepdim, values) ||
      !resize_reduced(ctx, self, mask, keepdim, indices)) {
    return result;
  }
  SelectOptions options;
  options.max = max;
  options.values = &values;
  options.indices = &indices;
  select_reduce(self, mask, options);
  return result;
}

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

}  // namespace kiln::portable
