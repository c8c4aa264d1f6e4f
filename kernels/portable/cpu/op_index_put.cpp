// index_put.out: a copy of self with `values` written (or added) at advanced-index positions;
// index_put_: the same in self itself.
#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "kernels/portable/cpu/util/index/advanced_index.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// a + b as ATen's accumulating index_put computes it in dtype T.
template <typename T>
inline T accumulate_value(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(a) + static_cast<float>(b));
  } else {
    return wrapping_add(a, b);
  }
}

// An odometer over `dim` dims of `sizes` tracking one offset along `strides`.
struct Walk {
  int32_t dim = 0;
  const SizesType* sizes = nullptr;
  const int64_t* strides = nullptr;
  int64_t coord[kTensorDimensionLimit] = {};
  int64_t offset = 0;

  void next() {
    for (int32_t d = dim - 1; d >= 0; --d) {
      if (++coord[d] < sizes[d]) {
        offset += strides[d];
        return;
      }
      coord[d] = 0;
      offset -= strides[d] * (sizes[d] - 1);
    }
  }
};

template <typename T>
void put_values(const AdvancedIndex& plan, const T* values, const int64_t* value_strides,
                bool accumulate, T* out) {
  const int32_t block_dims = static_cast<int32_t>(plan.result_dim - plan.inner_dim);
  Walk blocks{block_dims, plan.result_sizes, value_strides};
  const int64_t inner = plan.inner;
  for_each_index_block(plan, [&](int64_t, int64_t offset) {
    Walk elements{static_cast<int32_t>(plan.inner_dim), plan.result_sizes + block_dims,
                  value_strides + block_dims};
    T* dst = out + offset;
    const T* src = values + blocks.offset;
    for (int64_t i = 0; i < inner; ++i, elements.next()) {
      dst[i] = accumulate ? accumulate_value(dst[i], src[elements.offset]) : src[elements.offset];
    }
    blocks.next();
  });
}

// ATen sends a one-value, non-accumulating put whose index tensors are a single Bool/Byte mask
// through masked_fill_, which converts the value to self's dtype instead of requiring equal dtypes.
bool takes_masked_fill_route(ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                             bool accumulate) {
  if (accumulate || values.numel() != 1) return false;
  const Tensor* mask = nullptr;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i].has_value() || !indices[i]->defined()) continue;
    const ScalarType t = indices[i]->scalar_type();
    if ((t != ScalarType::Bool && t != ScalarType::Byte) || mask != nullptr) return false;
    mask = &*indices[i];
  }
  return true;
}

// The one element of `values` as a Scalar of its kind (bool, integer or floating).
Scalar single_value(const Tensor& values) {
  const ScalarType dtype = values.scalar_type();
  if (dtype == ScalarType::Bool) return Scalar(*values.const_data_ptr<bool>());
  if (is_floating_type(dtype)) {
    double value = 0;
    convert_element(values.const_data_ptr(), dtype, &value, ScalarType::Double);
    return Scalar(value);
  }
  int64_t value = 0;
  convert_element(values.const_data_ptr(), dtype, &value, ScalarType::Long);
  return Scalar(value);
}

// masked_fill_ refuses Byte masks and a list with no index tensor at all.
bool check_masked_fill_route(KernelRuntimeContext& ctx, ArrayRef<std::optional<Tensor>> indices) {
  const Tensor* mask = nullptr;
  for (size_t i = 0; i < indices.size() && mask == nullptr; ++i) {
    if (indices[i].has_value() && indices[i]->defined()) mask = &*indices[i];
  }
  KILN_KERNEL_CHECK_MSG(ctx, mask != nullptr, InvalidArgument, false,
                        "index_put: the indices list holds no index tensor");
  KILN_KERNEL_CHECK_MSG(ctx, mask->scalar_type() == ScalarType::Bool, InvalidArgument, false,
                        "masked_fill_ only supports boolean masks, but got mask with dtype Byte "
                        "(a one-value index_put with a mask is a masked fill)");
  return true;
}

// out = self with values put at the indices; out may be self (index_put_).
Tensor& put_into(KernelRuntimeContext& ctx, const Tensor& self,
                 ArrayRef<std::optional<Tensor>> indices, const Tensor& values, bool accumulate,
                 Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_default_dim_order(ctx, values, "values") ||
      !check_default_dim_order(ctx, out, "out")) {
    return out;
  }
  const bool masked_fill = takes_masked_fill_route(indices, values, accumulate);
  KILN_KERNEL_CHECK_MSG(ctx, masked_fill || values.scalar_type() == self.scalar_type(),
                        InvalidArgument, out,
                        "Index put requires the source and destination dtypes match, got %s for "
                        "the destination and %s for the source.",
                        to_string(self.scalar_type()), to_string(values.scalar_type()));
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  if (masked_fill && !check_masked_fill_route(ctx, indices)) return out;
  // On the masked-fill route the one value is read as a scalar (ATen's item()) and converted to
  // self's dtype as masked_fill_ converts it: refused when it does not fit.
  alignas(8) unsigned char converted_value[8] = {};
  const void* value_data = values.const_data_ptr();
  if (masked_fill) {
    const Scalar value = single_value(values);
    KILN_KERNEL_CHECK_MSG(ctx, fill_value_fits(value, self.scalar_type()), InvalidArgument, out,
                          "value cannot be converted to type %s without overflow: %s",
                          to_string(self.scalar_type()), format_scalar(value).text);
    store_fill_value(value, self.scalar_type(), converted_value);
    value_data = converted_value;
  }
  AdvancedIndex plan;
  if (!make_advanced_index(ctx, self, indices, /*allow_empty=*/true, &plan)) return out;
  // A lone 0-dim mask with one value is ATen's masked_fill shortcut: all of self or nothing.
  const bool fill_all =
      plan.num_entries == 0 && plan.zero_dim_mask >= 0 && !accumulate && values.numel() == 1;
  // As in ATen, an index list of only None (or 0-dim masks) is accepted when self is empty.
  const bool empty_self = indices.size() > 0 && self.numel() == 0;
  KILN_KERNEL_CHECK_MSG(ctx, plan.num_entries > 0 || fill_all || empty_self, InvalidArgument, out,
                        "index_put: the indices list indexes nothing; give at least one index "
                        "tensor");
  int64_t value_strides[kTensorDimensionLimit] = {};
  const ArrayRef<SizesType> value_sizes = values.sizes();
  bool fits = value_sizes.size() <= plan.result_dim;
  for (size_t j = value_sizes.size(), stride = 1; fits && j-- > 0;) {
    const size_t r = plan.result_dim - value_sizes.size() + j;
    fits = value_sizes[j] == plan.result_sizes[r] || value_sizes[j] == 1;
    value_strides[r] = value_sizes[j] == 1 ? 0 : static_cast<int64_t>(stride);
    stride *= static_cast<size_t>(value_sizes[j]);
  }
  KILN_KERNEL_CHECK_MSG(ctx, fill_all || fits, InvalidArgument, out,
                        "shape mismatch: value tensor of shape %s cannot be broadcast to indexing "
                        "result of shape %s",
                        format_shape(value_sizes).text,
                        format_shape({plan.result_sizes, plan.result_dim}).text);
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  copy_bytes(ctx, self, out);
  if (fill_all) {
    if (plan.zero_dim_mask == 0) return out;
    dispatch_by_width(self.element_size(), [&](auto* tag) {
      using U = std::remove_pointer_t<decltype(tag)>;
      const U value = static_cast<const U*>(value_data)[0];
      U* dst = out.mutable_data_ptr<U>();
      for (int64_t i = 0; i < out.numel(); ++i) dst[i] = value;
    });
    return out;
  }
  if (accumulate) {
    dispatch_element_type(self.scalar_type(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      put_values(plan, values.const_data_ptr<T>(), value_strides, true, out.mutable_data_ptr<T>());
    });
  } else {
    dispatch_by_width(self.element_size(), [&](auto* tag) {
      using U = std::remove_pointer_t<decltype(tag)>;
      put_values(plan, static_cast<const U*>(value_data), value_strides, false,
                 out.mutable_data_ptr<U>());
    });
  }
  return out;
}

}  // namespace

Tensor& index_put_out(KernelRuntimeContext& ctx, const Tensor& self,
                      ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                      bool accumulate, Tensor& out) {
  return put_into(ctx, self, indices, values, accumulate, out);
}

Tensor& index_put_(KernelRuntimeContext& ctx, Tensor& self, ArrayRef<std::optional<Tensor>> indices,
                   const Tensor& values, bool accumulate) {
  // Writing self while reading values or an index from its memory would read written elements.
  bool overlap = tensors_overlap(self, values);
  for (size_t i = 0; i < indices.size() && !overlap; ++i) {
    overlap = indices[i].has_value() && indices[i]->defined() && tensors_overlap(self, *indices[i]);
  }
  KILN_KERNEL_CHECK_MSG(ctx, !overlap, InvalidArgument, self,
                        "unsupported operation: some elements of the input tensor and the "
                        "written-to tensor refer to a single memory location. Please clone() the "
                        "tensor before performing the operation.");
  return put_into(ctx, self, indices, values, accumulate, self);
}

}  // namespace kiln::portable::native
