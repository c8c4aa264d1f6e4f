// where.self_out: out = condition ? self : other, broadcasting all three.
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/promotion.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/elementwise/binary_driver.h"
#include "kernels/portable/cpu/util/elementwise/binary_ops.h"
#include "kernels/portable/cpu/util/elementwise/broadcast.h"
#include "kernels/portable/cpu/util/vec/bit_select.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// out = c ? a : b over n contiguous elements of one size (a select never looks at the value).
template <typename U>
KILN_HOT_LOOP void where_row(const uint8_t* c, const U* a, const U* b, U* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = select_bits(c[i], a[i], b[i]);
}

// `value` repeated over the first n of `buffer`: a single-element operand (row stride 0) read as
// a row, so that one contiguous loop serves every row.
template <typename T>
const T* repeated(const T& value, int64_t n, T* buffer) {
  for (int64_t i = 0; i < n; ++i) buffer[i] = value;
  return buffer;
}

template <typename U>
void where_same_dtype(const BroadcastPlan& plan, const uint8_t* c, const void* a, const void* b,
                      void* out) {
  const U* pa = static_cast<const U*>(a);
  const U* pb = static_cast<const U*>(b);
  U* po = static_cast<U*>(out);
  const int64_t sc = plan.row_stride(0);
  const int64_t sa = plan.row_stride(1);
  const int64_t sb = plan.row_stride(2);
  for_each_row(plan, [&](const int64_t* offsets, int64_t out_offset, int64_t n) {
    if (sc == 1 && sa == 1 && sb == 1) {
      return where_row(c + offsets[0], pa + offsets[1], pb + offsets[2], po + out_offset, n);
    }
    uint8_t c_buf[kElementwiseChunk];
    U a_buf[kElementwiseChunk];
    U b_buf[kElementwiseChunk];
    const int64_t filled = n < kElementwiseChunk ? n : kElementwiseChunk;
    const uint8_t* c_row = sc == 0 ? repeated(c[offsets[0]], filled, c_buf) : nullptr;
    const U* a_row = sa == 0 ? repeated(pa[offsets[1]], filled, a_buf) : nullptr;
    const U* b_row = sb == 0 ? repeated(pb[offsets[2]], filled, b_buf) : nullptr;
    for (int64_t start = 0; start < n; start += kElementwiseChunk) {
      const int64_t m = n - start < kElementwiseChunk ? n - start : kElementwiseChunk;
      where_row(sc == 0 ? c_row : c + offsets[0] + start, sa == 0 ? a_row : pa + offsets[1] + start,
                sb == 0 ? b_row : pb + offsets[2] + start, po + out_offset + start, m);
    }
  });
}

// Self and other of other dtypes load through compute-type buffers, converted to `common`.
template <typename C>
void where_converting(const BroadcastPlan& plan, const uint8_t* c, const Tensor& self,
                      const Tensor& other, ScalarType common, Tensor& out) {
  C a_buf[kElementwiseChunk];
  C b_buf[kElementwiseChunk];
  const char* pa = static_cast<const char*>(self.const_data_ptr());
  const char* pb = static_cast<const char*>(other.const_data_ptr());
  char* po = static_cast<char*>(out.mutable_data_ptr());
  const size_t a_size = self.element_size();
  const size_t b_size = other.element_size();
  const size_t out_size = out.element_size();
  const int64_t sc = plan.row_stride(0);
  const int64_t sa = plan.row_stride(1);
  const int64_t sb = plan.row_stride(2);
  for_each_row(plan, [&](const int64_t* offsets, int64_t out_offset, int64_t n) {
    uint8_t c_buf[kElementwiseChunk];
    const int64_t filled = n < kElementwiseChunk ? n : kElementwiseChunk;
    if (sc == 0) repeated(c[offsets[0]], filled, c_buf);
    for (int64_t start = 0; start < n; start += kElementwiseChunk) {
      const int64_t m = n - start < kElementwiseChunk ? n - start : kElementwiseChunk;
      load_row_as<C>(pa + (offsets[1] + start * sa) * a_size, self.scalar_type(), sa, m, common,
                     a_buf);
      load_row_as<C>(pb + (offsets[2] + start * sb) * b_size, other.scalar_type(), sb, m, common,
                     b_buf);
      const uint8_t* cond = sc == 0 ? c_buf : c + offsets[0] + start;
      for (int64_t i = 0; i < m; ++i) a_buf[i] = select_bits(cond[i], a_buf[i], b_buf[i]);
      store_row<C>(a_buf, m, out.scalar_type(), po + (out_offset + start) * out_size);
    }
  });
}

}  // namespace

Tensor& where_self_out(KernelRuntimeContext& ctx, const Tensor& condition, const Tensor& self,
                       const Tensor& other, Tensor& out) {
  if (!check_tensor(ctx, condition, "condition") || !check_tensor(ctx, self, "self") ||
      !check_tensor(ctx, other, "other") || !check_tensor(ctx, out, "out")) {
    return out;
  }
  // ATen still takes a uint8 condition (deprecated); every other dtype is refused.
  KILN_KERNEL_CHECK_MSG(
      ctx,
      condition.scalar_type() == ScalarType::Bool || condition.scalar_type() == ScalarType::Byte,
      InvalidArgument, out,
      "where expected condition to be a boolean tensor, but got a tensor with dtype %s; compare "
      "it (e.g. condition != 0) to make a mask",
      to_string(condition.scalar_type()));
  const ScalarType common = result_type(self, other);
  if (!check_out_dtype_is(ctx, out, common)) return out;
  SizesType values_sizes[kTensorDimensionLimit];
  SizesType sizes[kTensorDimensionLimit];
  size_t values_dim = 0;
  size_t dim = 0;
  if (!broadcast_shapes(self.sizes(), other.sizes(), values_sizes, &values_dim) ||
      !broadcast_shapes(condition.sizes(), {values_sizes, values_dim}, sizes, &dim)) {
    ctx.fail(Error::InvalidArgument,
             "condition, self and other shapes %s, %s and %s are not broadcastable: sizes must "
             "match or be 1 in each trailing dim",
             format_shape(condition.sizes()).text, format_shape(self.sizes()).text,
             format_shape(other.sizes()).text);
    return out;
  }
  if (!resize_or_fail(ctx, out, {sizes, dim})) return out;
  if (out.numel() == 0) return out;
  BroadcastPlan plan;
  const ArrayRef<SizesType> shapes[3] = {condition.sizes(), self.sizes(), other.sizes()};
  make_broadcast_plan(out.sizes(), shapes, 3, &plan);
  const uint8_t* c = static_cast<const uint8_t*>(condition.const_data_ptr());
  if (self.scalar_type() == common && other.scalar_type() == common) {
    const void* a = self.const_data_ptr();
    const void* b = other.const_data_ptr();
    void* o = out.mutable_data_ptr();
    switch (element_size(common)) {
      case 1:
        where_same_dtype<uint8_t>(plan, c, a, b, o);
        return out;
      case 2:
        where_same_dtype<uint16_t>(plan, c, a, b, o);
        return out;
      case 4:
        where_same_dtype<uint32_t>(plan, c, a, b, o);
        return out;
      default:
        where_same_dtype<uint64_t>(plan, c, a, b, o);
        return out;
    }
  }
  dispatch_compute_type(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    where_converting<C>(plan, c, self, other, common, out);
  });
  return out;
}

}  // namespace kiln::portable::native
