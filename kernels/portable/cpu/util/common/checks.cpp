// Argument checks shared by the portable kernels.
#include "kernels/portable/cpu/util/common/checks.h"

#include <cstdio>

#include "kernels/portable/cpu/util/common/dtypes.h"
#include "runtime/core/dim_order.h"

namespace kiln::portable {

ShapeText format_shape(ArrayRef<SizesType> sizes) {
  ShapeText shape;
  const size_t capacity = sizeof(shape.text);
  size_t used = static_cast<size_t>(std::snprintf(shape.text, capacity, "["));
  for (size_t i = 0; i < sizes.size() && used < capacity; ++i) {
    used +=
        static_cast<size_t>(std::snprintf(shape.text + used, capacity - used, "%s%lld",
                                          i == 0 ? "" : ", ", static_cast<long long>(sizes[i])));
  }
  if (used < capacity) std::snprintf(shape.text + used, capacity - used, "]");
  return shape;
}

ScalarText format_scalar(const Scalar& scalar) {
  ScalarText text;
  if (scalar.isBoolean()) {
    std::snprintf(text.text, sizeof(text.text), "%s", scalar.toBool() ? "True" : "False");
  } else if (scalar.isIntegral(false)) {
    std::snprintf(text.text, sizeof(text.text), "%lld", static_cast<long long>(scalar.toInt()));
  } else {
    std::snprintf(text.text, sizeof(text.text), "%.17g", scalar.toDouble());
  }
  return text;
}

bool check_default_dim_order(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name) {
  if (is_default_dim_order(tensor.dim_order())) return true;
  char order[64];
  size_t used = 0;
  for (DimOrderType d : tensor.dim_order()) {
    if (used >= sizeof(order)) break;
    used += static_cast<size_t>(std::snprintf(order + used, sizeof(order) - used, "%s%d",
                                              used == 0 ? "" : ", ", static_cast<int>(d)));
  }
  ctx.fail(Error::NotSupported,
           "%s has dim order [%s]; the portable kernel supports only the contiguous dim order "
           "[0, 1, ...]; pass a contiguous tensor",
           name, order);
  return false;
}

bool check_supported_dtype(KernelRuntimeContext& ctx, ScalarType dtype, const char* name) {
  if (is_supported_dtype(dtype)) return true;
  ctx.fail(Error::InvalidType,
           "%s has dtype %s, which the portable kernel does not support; use one of Bool, Byte, "
           "Char, Short, Int, Long, Half, BFloat16, Float, Double",
           name, to_string(dtype));
  return false;
}

bool check_tensor(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name) {
  return check_supported_dtype(ctx, tensor.scalar_type(), name) &&
         check_default_dim_order(ctx, tensor, name);
}

bool check_memory_format(KernelRuntimeContext& ctx, std::optional<MemoryFormat> memory_format,
                         const Tensor& self) {
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  KILN_KERNEL_CHECK_MSG(ctx, static_cast<int>(format) >= 0 && static_cast<int>(format) <= 3,
                        InvalidArgument, false, "unknown memory_format code %d",
                        static_cast<int>(format));
  KILN_KERNEL_CHECK_MSG(ctx, format != MemoryFormat::ChannelsLast || self.dim() == 4,
                        InvalidArgument, false,
                        "required rank 4 tensor to use channels_last format (self has rank %lld)",
                        static_cast<long long>(self.dim()));
  KILN_KERNEL_CHECK_MSG(ctx, format != MemoryFormat::ChannelsLast3d || self.dim() == 5,
                        InvalidArgument, false,
                        "required rank 5 tensor to use channels_last_3d format (self has rank "
                        "%lld)",
                        static_cast<long long>(self.dim()));
  return true;
}

bool check_out_dtype_is(KernelRuntimeContext& ctx, const Tensor& out, ScalarType expected) {
  if (out.scalar_type() == expected) return true;
  ctx.fail(Error::InvalidArgument,
           "Expected out tensor to have dtype %s, but got %s instead; pass an out tensor of dtype "
           "%s",
           to_string(expected), to_string(out.scalar_type()), to_string(expected));
  return false;
}

bool check_out_apart(KernelRuntimeContext& ctx, const Tensor& out, const Tensor& input,
                     const char* name) {
  const auto* out_begin = static_cast<const char*>(out.const_data_ptr());
  const auto* in_begin = static_cast<const char*>(input.const_data_ptr());
  const bool apart = out.nbytes() == 0 || input.nbytes() == 0 ||
                     out_begin + out.nbytes() <= in_begin || in_begin + input.nbytes() <= out_begin;
  KILN_KERNEL_CHECK_MSG(ctx, apart, InvalidArgument, false,
                        "out shares memory with %s: a product cannot be written over its own "
                        "factors; pass a separate out tensor",
                        name);
  return true;
}

bool check_out_dtype_castable(KernelRuntimeContext& ctx, const Tensor& out, ScalarType result) {
  if (can_cast(result, out.scalar_type())) return true;
  ctx.fail(Error::InvalidArgument,
           "result type %s can't be cast to the desired output type %s; pass an out tensor of "
           "dtype %s (or one it can be cast to)",
           to_string(result), to_string(out.scalar_type()), to_string(result));
  return false;
}

bool wrap_dim(KernelRuntimeContext& ctx, int64_t dim, int64_t rank, int64_t* wrapped) {
  const int64_t extent = rank > 0 ? rank : 1;
  if (dim < -extent || dim >= extent) {
    ctx.fail(Error::InvalidArgument,
             "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
             static_cast<long long>(-extent), static_cast<long long>(extent - 1),
             static_cast<long long>(dim));
    return false;
  }
  *wrapped = dim < 0 ? dim + extent : dim;
  return true;
}

bool wrap_sliced_dim(KernelRuntimeContext& ctx, const char* op, int64_t dim, int64_t rank,
                     int64_t* wrapped) {
  KILN_KERNEL_CHECK_MSG(ctx, rank > 0, InvalidArgument, false,
                        "%s() cannot be applied to a 0-dim tensor.", op);
  return wrap_dim(ctx, dim, rank, wrapped);
}

bool check_rank_limit(KernelRuntimeContext& ctx, size_t rank, const char* name) {
  KILN_KERNEL_CHECK_MSG(ctx, rank <= kTensorDimensionLimit, InvalidArgument, false,
                        "%s has %zu dims; tensors have at most %zu", name, rank,
                        kTensorDimensionLimit);
  return true;
}

}  // namespace kiln::portable
