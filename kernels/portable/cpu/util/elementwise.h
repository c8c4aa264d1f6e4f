// Elementwise drivers: binary ops with broadcasting and promotion, and same-shape unary maps.
//
// A kernel checks its arguments, resizes `out`, then hands a functor factory to a driver:
// make_op(T{}) returns the functor for element type T (a dtype's own type on the same-dtype
// path, its compute type on the converting path). Same-dtype inputs of the common dtypes run a
// tight loop the compiler vectorises; everything else loads rows into compute-type buffers.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/util/broadcast.h"
#include "kernels/portable/cpu/util/convert.h"
#include "kernels/portable/cpu/util/dtype_util.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"

namespace kiln::portable {

// One input of an elementwise op: a contiguous tensor or a wrapped scalar (empty sizes).
struct ElementwiseInput {
  const void* data;
  ScalarType dtype;
  ArrayRef<SizesType> sizes;

  static ElementwiseInput of(const Tensor& t) {
    return {t.const_data_ptr(), t.scalar_type(), t.sizes()};
  }
};

// Storage for a Scalar viewed as a 0-dim input: Bool, Long or Double as the Scalar holds.
union ScalarStorage {
  bool as_bool;
  int64_t as_long;
  double as_double;
};

// A wrapped-number input holding `scalar`; `storage` must outlive the returned input.
inline ElementwiseInput scalar_input(const Scalar& scalar, ScalarStorage& storage) {
  const ScalarType dtype = scalar.type();
  if (dtype == ScalarType::Bool) {
    storage.as_bool = scalar.toBool();
  } else if (dtype == ScalarType::Long) {
    storage.as_long = scalar.toInt();
  } else {
    storage.as_double = scalar.toDouble();
  }
  return {&storage, dtype, {}};
}

// Rows converted through compute-type buffers of this many elements (3 buffers on the stack).
constexpr int64_t kElementwiseChunk = 256;

namespace detail {

// One row: out[i] = op(a[i * sa], b[i * sb]) with strides 0 or 1 (never both 0 unless n == 1),
// written as separate loops so each is a plain vectorisable loop.
template <typename T, typename Op>
inline void binary_row(const T* a, int64_t sa, const T* b, int64_t sb, T* out, int64_t n,
                       const Op& op) {
  if (sa != 0 && sb != 0) {
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
  } else if (sa == 0) {
    const T x = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = op(x, b[i]);
  } else {
    const T y = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], y);
  }
}

template <typename T, typename Op>
void binary_same_dtype(const BroadcastPlan& plan, const void* a, const void* b, void* out,
                       const Op& op) {
  const T* pa = static_cast<const T*>(a);
  const T* pb = static_cast<const T*>(b);
  T* po = static_cast<T*>(out);
  const int64_t sa = plan.row_stride(0);
  const int64_t sb = plan.row_stride(1);
  for_each_row(plan, [&](const int64_t* offsets, int64_t out_offset, int64_t n) {
    binary_row(pa + offsets[0], sa, pb + offsets[1], sb, po + out_offset, n, op);
  });
}

// Rows through compute-type buffers. An operand (or out) that already holds C contiguously is
// read (or written) in place, so only the operands that need converting pay for a copy.
template <typename C, typename Op>
void binary_converting(const BroadcastPlan& plan, const ElementwiseInput& a,
                       const ElementwiseInput& b, bool round_b, ScalarType common, void* out,
                       ScalarType out_type, const Op& op) {
  constexpr ScalarType kComputeType = CppToScalarType<C>::value;
  C a_buf[kElementwiseChunk];
  C b_buf[kElementwiseChunk];
  C out_buf[kElementwiseChunk];
  const int64_t sa = plan.row_stride(0);
  const int64_t sb = plan.row_stride(1);
  const bool a_direct = a.dtype == kComputeType && a.dtype == common && sa == 1;
  const bool b_direct = b.dtype == kComputeType && b.dtype == common && sb == 1;
  const bool out_direct = out_type == kComputeType && out_type == common;
  const size_t a_size = element_size(a.dtype);
  const size_t b_size = element_size(b.dtype);
  const size_t out_size = element_size(out_type);
  const char* pa = static_cast<const char*>(a.data);
  const char* pb = static_cast<const char*>(b.data);
  char* po = static_cast<char*>(out);
  for_each_row(plan, [&](const int64_t* offsets, int64_t out_offset, int64_t n) {
    for (int64_t start = 0; start < n; start += kElementwiseChunk) {
      const int64_t m = n - start < kElementwiseChunk ? n - start : kElementwiseChunk;
      const char* a_row = pa + (offsets[0] + start * sa) * a_size;
      const char* b_row = pb + (offsets[1] + start * sb) * b_size;
      char* out_row = po + (out_offset + start) * out_size;
      const C* x = a_direct ? reinterpret_cast<const C*>(a_row) : a_buf;
      const C* y = b_direct ? reinterpret_cast<const C*>(b_row) : b_buf;
      C* z = out_direct ? reinterpret_cast<C*>(out_row) : out_buf;
      if (!a_direct) load_row_as<C>(a_row, a.dtype, sa, m, common, a_buf);
      if (!b_direct && round_b) load_row_as<C>(b_row, b.dtype, sb, m, common, b_buf);
      if (!b_direct && !round_b) load_row<C>(b_row, b.dtype, sb, m, b_buf);
      for (int64_t i = 0; i < m; ++i) z[i] = op(x[i], y[i]);
      if (!out_direct) store_row_as<C>(out_buf, m, common, out_type, out_row);
    }
  });
}

// Holds a single-element input converted to the common dtype, so scalars and 0-dim tensors of
// another dtype do not force the converting path.
struct ScalarSlot {
  alignas(8) unsigned char bytes[8];
};
void promote_single_element(ElementwiseInput& input, ScalarType common, ScalarSlot& slot);

}  // namespace detail

// How an elementwise op treats a single-element `other` when the common dtype is Half or
// BFloat16. ATen's mul and div read such a scalar straight into float (0 * 65520 is 0 in Half,
// although 65520 rounds to inf); add and sub round it to the common dtype first.
enum class ScalarOther : uint8_t { kRound, kExact };

// out = op(a, b) elementwise over the broadcast of a and b. Preconditions (checked by the
// kernel): all dtypes supported, `common` is the promoted dtype, out already has the broadcast
// shape and a dtype `common` can be cast to. Values are computed in `common` (rounded there) and
// then converted to out's dtype, as ATen does. Code is generated only for dtypes in kCategories;
// `common` must be one of them.
template <unsigned kCategories = kAllTypes, ScalarOther kScalarOther = ScalarOther::kRound,
          typename MakeOp>
void apply_binary_op(ElementwiseInput a, ElementwiseInput b, ScalarType common, Tensor& out,
                     MakeOp&& make_op) {
  if (out.numel() == 0) return;
  const bool round_b = kScalarOther == ScalarOther::kRound || !is_reduced_floating_type(common) ||
                       compute_numel(b.sizes) != 1;
  detail::ScalarSlot a_slot, b_slot;
  detail::promote_single_element(a, common, a_slot);
  if (round_b) detail::promote_single_element(b, common, b_slot);
  BroadcastPlan plan;
  const ArrayRef<SizesType> shapes[2] = {a.sizes, b.sizes};
  make_broadcast_plan(out.sizes(), shapes, 2, &plan);
  const ScalarType out_type = out.scalar_type();
  void* out_data = out.mutable_data_ptr();
  if (a.dtype == common && b.dtype == common && out_type == common &&
      dispatch_fast_type<kCategories>(common, [&](auto tag) {
        using T = typename decltype(tag)::type;
        detail::binary_same_dtype<T>(plan, a.data, b.data, out_data, make_op(T{}));
      })) {
    return;
  }
  dispatch_compute_type<kCategories>(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    detail::binary_converting<C>(plan, a, b, round_b, common, out_data, out_type, make_op(C{}));
  });
}

// out = op(in) elementwise for same-shape contiguous tensors, computed in in's dtype and then
// converted to out's dtype (equal dtypes take a plain loop when the dtype has a fast path).
template <unsigned kCategories = kAllTypes, typename MakeOp>
void apply_unary_op(const Tensor& in, Tensor& out, MakeOp&& make_op) {
  const int64_t n = in.numel();
  const ScalarType in_type = in.scalar_type();
  const ScalarType out_type = out.scalar_type();
  if (in_type == out_type && dispatch_fast_type<kCategories>(in_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const auto op = make_op(T{});
        const T* src = in.const_data_ptr<T>();
        T* dst = out.mutable_data_ptr<T>();
        for (int64_t i = 0; i < n; ++i) dst[i] = op(src[i]);
      })) {
    return;
  }
  dispatch_compute_type<kCategories>(in_type, [&](auto tag) {
    using C = typename decltype(tag)::type;
    const auto op = make_op(C{});
    C buf[kElementwiseChunk];
    const char* src = static_cast<const char*>(in.const_data_ptr());
    char* dst = static_cast<char*>(out.mutable_data_ptr());
    const size_t in_size = element_size(in_type);
    const size_t out_size = element_size(out_type);
    for (int64_t start = 0; start < n; start += kElementwiseChunk) {
      const int64_t m = n - start < kElementwiseChunk ? n - start : kElementwiseChunk;
      load_row<C>(src + start * in_size, in_type, 1, m, buf);
      for (int64_t i = 0; i < m; ++i) buf[i] = op(buf[i]);
      store_row_as<C>(buf, m, in_type, out_type, dst + start * out_size);
    }
  });
}

}  // namespace kiln::portable
