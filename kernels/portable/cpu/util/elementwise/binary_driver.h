// Elementwise binary driver: ops over two inputs with broadcasting and dtype promotion.
//
// A kernel checks its arguments, resizes `out`, then hands a functor factory to a driver:
// make_op(T{}) returns the functor for element type T (a dtype's own type on the same-dtype
// path, its compute type on the converting path). Same-dtype inputs of the common dtypes run a
// tight loop the compiler vectorises; everything else loads rows into compute-type buffers.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/isa/binary_rows.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/elementwise/broadcast.h"
#include "kernels/portable/cpu/util/elementwise/math_loop.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "kernels/portable/cpu/util/vec/rare_inputs.h"
#include "runtime/core/half.h"
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

// `other` as an elementwise input: a tensor as it is, a Scalar as a wrapped number held in
// `storage` (which must outlive the input).
inline ElementwiseInput input_of(const Tensor& other, ScalarStorage&) {
  return ElementwiseInput::of(other);
}
inline ElementwiseInput input_of(const Scalar& other, ScalarStorage& storage) {
  return scalar_input(other, storage);
}

// Rows converted through compute-type buffers of this many elements (3 buffers on the stack).
constexpr int64_t kElementwiseChunk = 256;

namespace detail {

// An op's value as an out element. A predicate's bool selects 0 or 1: GCC does not vectorise a
// plain conversion of a float comparison's bool into a float out.
template <typename R, typename V>
inline R to_result(V value) {
  if constexpr (std::is_same_v<V, bool> && !std::is_same_v<R, bool>) {
    return value ? R(1) : R(0);
  } else {
    return static_cast<R>(value);
  }
}

// One row: out[i] = op(a[i * sa], b[i * sb]) with strides 0 or 1 (never both 0 unless n == 1),
// written as separate loops so each is a plain vectorisable loop. R is T for arithmetic (float
// for Half arithmetic into a Float out), bool for predicates.
template <typename T, typename R, typename Op>
KILN_ALWAYS_INLINE void binary_row_plain(const T* a, int64_t sa, const T* b, int64_t sb, R* out,
                                         int64_t n, const Op& op) {
  if (sa != 0 && sb != 0) {
    for (int64_t i = 0; i < n; ++i) out[i] = to_result<R>(op(a[i], b[i]));
  } else if (sa == 0) {
    const T x = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = to_result<R>(op(x, b[i]));
  } else {
    const T y = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = to_result<R>(op(a[i], y));
  }
}

// binary_row_plain for an op with rare inputs (vec/rare_inputs.h), block by block.
template <typename T, typename R, typename Op>
KILN_ALWAYS_INLINE void binary_row_guarded(const T* a, int64_t sa, const T* b, int64_t sb, R* out,
                                           int64_t n, const Op& op) {
  for (int64_t start = 0; start < n; start += kRareScanBlock) {
    const int64_t m = n - start < kRareScanBlock ? n - start : kRareScanBlock;
    const T* x = a + start * sa;
    const T* y = b + start * sb;
    unsigned rare = 0;
    for (int64_t i = 0; i < m; ++i) rare |= static_cast<unsigned>(op.rare(x[i * sa], y[i * sb]));
    if (rare == 0) {
      binary_row_plain(x, sa, y, sb, out + start, m, op);
      continue;
    }
    for (int64_t i = 0; i < m; ++i) {
      const T u = x[i * sa];
      const T v = y[i * sb];
      out[start + i] = to_result<R>(op.rare(u, v) ? op.exact(u, v) : op(u, v));
    }
  }
}

template <typename T, typename R, typename Op>
KILN_ALWAYS_INLINE void binary_row_body(const T* a, int64_t sa, const T* b, int64_t sb, R* out,
                                        int64_t n, const Op& op) {
  if constexpr (HasRareInputs<Op>::value) {
    binary_row_guarded(a, sa, b, sb, out, n, op);
  } else {
    binary_row_plain(a, sa, b, sb, out, n, op);
  }
}

template <typename T, typename R, typename Op>
KILN_HOT_LOOP void binary_row_cloned(const T* a, int64_t sa, const T* b, int64_t sb, R* out,
                                     int64_t n, const Op& op) {
  binary_row_body(a, sa, b, sb, out, n, op);
}

// Whether functor Op's narrow integer rows need the AVX2 clone: it declares `static constexpr
// bool kVectorIntegerRows = true` (the shifts: SSE2 has no per-element shift counts).
template <typename Op, typename = void>
struct VectorIntegerRows : std::false_type {};
template <typename Op>
struct VectorIntegerRows<Op, std::void_t<decltype(Op::kVectorIntegerRows)>>
    : std::bool_constant<Op::kVectorIntegerRows> {};

// Whether functor Op computes the same bits for signed and unsigned integers of one width
// (wrapping add and multiply, the bitwise ops): it declares `static constexpr bool
// kSignAgnostic = true`. Such an op's Char rows run as Byte rows, one loop for both.
template <typename Op, typename = void>
struct SignAgnostic : std::false_type {};
template <typename Op>
struct SignAgnostic<Op, std::void_t<decltype(Op::kSignAgnostic)>>
    : std::bool_constant<Op::kSignAgnostic> {};

// The element type T's same-dtype rows run in under the factory MakeOp: uint8_t for int8_t when
// its op is SignAgnostic, T otherwise (only int8_t asks MakeOp for its op).
template <typename T, typename MakeOp>
struct RowType {
  using type = T;
};
template <typename MakeOp>
struct RowType<int8_t, MakeOp> {
  using type = std::conditional_t<SignAgnostic<std::invoke_result_t<const MakeOp&, int8_t>>::value,
                                  uint8_t, int8_t>;
};

// One row of a same-dtype loop. The AVX2 clone (common/target.h) pays for floating rows, for int64
// rows (SSE2 has no 64-bit compare or multiply) and for VectorIntegerRows ops; other 8- to
// 32-bit integer rows are memory-bound at SSE2's width (1M int32 add, mul, lt and maximum
// measured within a few percent of the clone), so their clones were bytes for nothing.
template <typename T, typename R, typename Op>
void binary_row(const T* a, int64_t sa, const T* b, int64_t sb, R* out, int64_t n, const Op& op) {
  if constexpr (std::is_floating_point_v<T> || sizeof(T) == 8 || VectorIntegerRows<Op>::value) {
    binary_row_cloned(a, sa, b, sb, out, n, op);
  } else {
    binary_row_body(a, sa, b, sb, out, n, op);
  }
}

// out[i] = op(a[i], b[i]) for a VectorMath op (elementwise/math_loop.h), with the AVX-512 clone
// too.
template <typename T, typename R, typename Op>
KILN_MATH_LOOP void binary_math_loop(const T* a, const T* b, R* out, int64_t n, const Op& op) {
  binary_row_body(a, int64_t{1}, b, int64_t{1}, out, n, op);
}

// binary_row for VectorMath ops. Their loops inline a whole vector formula (a large clone each),
// so only the contiguous loop is compiled: a broadcast operand is expanded into a
// buffer, a store per element beside the formula's dozens of operations. Both strides are 0 only
// for a single element (binary_row_plain).
template <typename T, typename R, typename Op>
void binary_math_row(const T* a, int64_t sa, const T* b, int64_t sb, R* out, int64_t n,
                     const Op& op) {
  if ((sa != 0 && sb != 0) || n == 1) return binary_math_loop(a, b, out, n, op);
  T repeated[kElementwiseChunk];
  const T value = sa == 0 ? a[0] : b[0];
  const int64_t filled = n < kElementwiseChunk ? n : kElementwiseChunk;
  for (int64_t i = 0; i < filled; ++i) repeated[i] = value;
  for (int64_t start = 0; start < n; start += kElementwiseChunk) {
    const int64_t m = n - start < kElementwiseChunk ? n - start : kElementwiseChunk;
    binary_math_loop(sa == 0 ? repeated : a + start, sb == 0 ? repeated : b + start, out + start, m,
                     op);
  }
}

// A 16-bit float (or an exact float scalar) as float.
template <typename B>
KILN_ALWAYS_INLINE float as_float(B value) {
  if constexpr (std::is_same_v<B, float>) {
    return value;
  } else if constexpr (std::is_same_v<B, BFloat16>) {
    return kiln::detail::bfloat16_bits_to_float(value.x);
  } else {
    return kiln::detail::half_bits_to_float(value.x);
  }
}

// A float op's result as R: BFloat16, or a predicate's bool.
template <typename R, typename V>
KILN_ALWAYS_INLINE R bfloat16_result(V value) {
  if constexpr (std::is_same_v<V, bool>) {
    return value;
  } else {
    return BFloat16::from_bits(kiln::detail::float_to_bfloat16_bits(value));
  }
}

// Whether a float op also picks between two BFloat16 patterns without widening them:
// `bfloat16_bits(uint16_t, uint16_t)`, for ops whose result is one operand or NaN (maximum).
template <typename Op, typename = void>
struct PicksBFloat16Bits : std::false_type {};
template <typename Op>
struct PicksBFloat16Bits<
    Op, std::void_t<decltype(std::declval<const Op&>().bfloat16_bits(uint16_t{}, uint16_t{}))>>
    : std::true_type {};

// reduced_row's loop for such an op: 16-bit lanes throughout, twice as many per vector as
// float's, and no rounding.
template <typename Op>
KILN_HOT_LOOP void bfloat16_bits_row(const BFloat16* a, int64_t sa, const BFloat16* b, int64_t sb,
                                     BFloat16* out, int64_t n, const Op& op) {
  if (sa != 0 && sb != 0) {
    for (int64_t i = 0; i < n; ++i) out[i].x = op.bfloat16_bits(a[i].x, b[i].x);
  } else if (sa == 0) {
    const uint16_t x = a[0].x;
    for (int64_t i = 0; i < n; ++i) out[i].x = op.bfloat16_bits(x, b[i].x);
  } else {
    const uint16_t y = b[0].x;
    for (int64_t i = 0; i < n; ++i) out[i].x = op.bfloat16_bits(a[i].x, y);
  }
}

// binary_row for BFloat16 with a float op, converting inline: BFloat16 is a shift (and a
// rounding add) that vectorises, cheaper fused than a pass through buffers. On x86-64 the ISA room
// compiles it for x86-64-v3 and x86-64-v4 alone (isa/binary_rows.h; reduced_row sends older x86
// CPUs a chunk at a time). B is BFloat16, or float for an exact scalar b (sb == 0); R is
// BFloat16, or bool for a predicate.
template <typename R, typename B, typename Op>
KILN_ALWAYS_INLINE void bfloat16_row(const BFloat16* a, int64_t sa, const B* b, int64_t sb, R* out,
                                     int64_t n, const Op& op) {
  if (sa != 0 && sb != 0) {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = bfloat16_result<R>(op(as_float(a[i]), as_float(b[i])));
    }
  } else if (sa == 0) {
    const float x = as_float(a[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = bfloat16_result<R>(op(x, as_float(b[i])));
  } else {
    const float y = as_float(b[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = bfloat16_result<R>(op(as_float(a[i]), y));
  }
}

// bfloat16_row as the ISA room compiles it for a CPU (isa/x86/target.h's run_v3 and run_v4).
struct BFloat16Row {
  template <int kBytes, typename R, typename B, typename Op>
  KILN_ALWAYS_INLINE static void run(const BFloat16* a, int64_t sa, const B* b, int64_t sb, R* out,
                                     int64_t n, const Op& op) {
    bfloat16_row(a, sa, b, sb, out, n, op);
  }
};

// The row loop for op over same-dtype elements: binary_math_row, with its AVX-512 clone, for
// VectorMath ops (elementwise/math_loop.h), binary_row for the others.
template <typename T, typename R, typename Op>
KILN_ALWAYS_INLINE void op_row(const T* a, int64_t sa, const T* b, int64_t sb, R* out, int64_t n,
                               const Op& op) {
  if constexpr (VectorMath<Op>::value) {
    binary_math_row(a, sa, b, sb, out, n, op);
  } else {
    binary_row(a, sa, b, sb, out, n, op);
  }
}

// op_row over one row with op, as binary_rows calls it. A named type rather than a lambda in the
// dtype dispatch: Char rows that run as Byte rows (SignAgnostic) then share Byte's whole row
// loop, where each dispatch case's own lambda type made a copy of it.
template <typename Op>
struct OpRow {
  const Op& op;
  template <typename T, typename R>
  void operator()(const T* a, int64_t sa, const T* b, int64_t sb, R* out, int64_t n) const {
    op_row(a, sa, b, sb, out, n, op);
  }
};

// binary_row for Half or BFloat16 with a float op, a chunk at a time: the operands widen into
// float buffers (vec/convert.h's rows, F16C for Half where the CPU has it), the float row loop
// computes and the results narrow back. B is T, or float for an exact scalar b (sb == 0). Chunks
// of 1024, whose three buffers stay in L1: with smaller chunks the calls per chunk were a large
// share of a Half add's time (docs/performance.md).
constexpr int64_t kReducedChunk = 1024;

template <typename T, typename R, typename B, typename Op>
void chunked_row(const T* a, int64_t sa, const B* b, int64_t sb, R* out, int64_t n, const Op& op) {
  using V = decltype(op(0.0f, 0.0f));
  float x[kReducedChunk];
  float y[kReducedChunk];
  if (sa == 0) widen_row(a, x, 1);
  if (sb == 0) y[0] = as_float(b[0]);
  for (int64_t start = 0; start < n; start += kReducedChunk) {
    const int64_t m = n - start < kReducedChunk ? n - start : kReducedChunk;
    if (sa != 0) widen_row(a + start, x, m);
    if constexpr (std::is_same_v<B, T>) {
      if (sb != 0) widen_row(b + start, y, m);
    }
    if constexpr (std::is_same_v<V, bool> || std::is_same_v<R, float>) {
      op_row(x, sa, y, sb, out + start, m, op);
      if constexpr (!std::is_same_v<V, bool>) round_floats_to<T>(out + start, m);
    } else {
      float z[kReducedChunk];
      op_row(x, sa, y, sb, z, m, op);
      narrow_row(z, out + start, m);
    }
  }
}

// binary_row for Half or BFloat16 elements with a float op. R is T, float (results rounded to T,
// then widened: a Float out) or bool (a predicate into a Bool out; the result stores as 0 or 1).
// B is T, or float for an exact scalar b (sb == 0). BFloat16 converts inline for cheap ops into
// a BFloat16 or Bool out, and Half for cheap ops without rare inputs into a Half out where the ISA
// room has a loop for the CPU (isa/binary_rows.h); the rest go a chunk at a time: other Half
// rows, 16-bit rows under a VectorMath op (whose float loop is large and has the AVX-512 clone),
// BFloat16 into a Float out (rare; inline it cost every op more clones of three loops), and, in a
// build with x86-64 microkernels, both on CPUs older than x86-64-v3 (a baseline copy of every
// op's inline loop would be bytes for rare CPUs; docs/performance.md).
template <typename T, typename R, typename B, typename Op>
void reduced_row(const T* a, int64_t sa, const B* b, int64_t sb, R* out, int64_t n, const Op& op) {
  constexpr bool kInline =
      std::is_same_v<T, BFloat16> && !VectorMath<Op>::value && !std::is_same_v<R, float>;
  if constexpr (kInline && PicksBFloat16Bits<Op>::value && std::is_same_v<B, BFloat16> &&
                std::is_same_v<R, BFloat16>) {
    bfloat16_bits_row(a, sa, b, sb, out, n, op);
  } else if constexpr (kInline) {
    if (isa::bfloat16_row<BFloat16Row>(a, sa, b, sb, out, n, op)) return;
    if constexpr (isa::kX86) {
      chunked_row(a, sa, b, sb, out, n, op);
    } else {
      bfloat16_row(a, sa, b, sb, out, n, op);
    }
  } else {
    // Half arithmetic into a Half out converts inline; predicates, whose bool stores do not
    // vectorise there, and ops with rare inputs keep the chunks.
    if constexpr (std::is_same_v<T, Half> && std::is_same_v<R, Half> && !VectorMath<Op>::value &&
                  !HasRareInputs<Op>::value) {
      if (isa::half_row(a, sa, b, sb, out, n, op)) return;
    }
    chunked_row(a, sa, b, sb, out, n, op);
  }
}

// Runs `row` (binary_row or reduced_row) over every row of the plan, split over ctx's threads; B is
// b's element type when it differs from a's.
template <typename T, typename R, typename B = T, typename Row>
void binary_rows(const KernelRuntimeContext& ctx, const BroadcastPlan& plan, const void* a,
                 const void* b, void* out, const Row& row) {
  const BinaryOperands operands{a, sizeof(T), b, sizeof(B), out, sizeof(R)};
  for_each_binary_row(
      ctx, plan, operands,
      [&](const void* x, int64_t sx, const void* y, int64_t sy, void* z, int64_t n) {
        row(static_cast<const T*>(x), sx, static_cast<const B*>(y), sy, static_cast<R*>(z), n);
      });
}

// Rows through compute-type buffers. An operand (or out) that already holds C contiguously is
// read (or written) in place, so only the operands that need converting pay for a copy. A
// predicate's 0/1 results store into any out dtype without rounding to `common`. The op runs in
// op_row, the loop same-dtype inputs of C take, so both paths share its code. Split over ctx's
// threads, each row with its own buffers.
template <typename C, bool kPredicate, typename Op>
void binary_converting(const KernelRuntimeContext& ctx, const BroadcastPlan& plan,
                       const ElementwiseInput& a, const ElementwiseInput& b, bool round_b,
                       ScalarType common, void* out, ScalarType out_type, const Op& op) {
  constexpr ScalarType kComputeType = CppToScalarType<C>::value;
  const int64_t sa = plan.row_stride(0);
  const int64_t sb = plan.row_stride(1);
  const bool a_direct = a.dtype == kComputeType && a.dtype == common && sa == 1;
  const bool b_direct = b.dtype == kComputeType && b.dtype == common && sb == 1;
  const bool out_direct = !kPredicate && out_type == kComputeType && out_type == common;
  const size_t a_size = element_size(a.dtype);
  const size_t b_size = element_size(b.dtype);
  const size_t out_size = element_size(out_type);
  const char* pa = static_cast<const char*>(a.data);
  const char* pb = static_cast<const char*>(b.data);
  char* po = static_cast<char*>(out);
  for_each_row_parallel(ctx, plan, [&](const int64_t* offsets, int64_t out_offset, int64_t n) {
    C a_buf[kElementwiseChunk];
    C b_buf[kElementwiseChunk];
    C out_buf[kElementwiseChunk];
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
      if constexpr (kPredicate) {
        if (out_type == ScalarType::Bool) {
          op_row(x, 1, y, 1, reinterpret_cast<bool*>(out_row), m, op);
        } else {
          op_row(x, 1, y, 1, z, m, op);
          store_row<C>(z, m, out_type, out_row);
        }
      } else {
        op_row(x, 1, y, 1, z, m, op);
        if (!out_direct) store_row_as<C>(out_buf, m, common, out_type, out_row);
      }
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

namespace detail {

// The shared driver: kPredicate ops return bool (written as 0/1 into out's dtype), others return
// the compute type (rounded to `common`, then converted to out's dtype).
template <bool kPredicate, unsigned kCategories, ScalarOther kScalarOther, typename MakeOp>
void apply_binary(const KernelRuntimeContext& ctx, ElementwiseInput a, ElementwiseInput b,
                  ScalarType common, Tensor& out, MakeOp&& make_op) {
  if (out.numel() == 0) return;
  const bool round_b = kScalarOther == ScalarOther::kRound || !is_reduced_floating_type(common) ||
                       compute_numel(b.sizes) != 1;
  ScalarSlot a_slot, b_slot;
  promote_single_element(a, common, a_slot);
  if (round_b) promote_single_element(b, common, b_slot);
  BroadcastPlan plan;
  const ArrayRef<SizesType> shapes[2] = {a.sizes, b.sizes};
  make_broadcast_plan(out.sizes(), shapes, 2, &plan);
  const ScalarType out_type = out.scalar_type();
  void* out_data = out.mutable_data_ptr();
  // Same-dtype inputs take a direct loop into out of the op's own result dtype (Bool for
  // predicates), or Half and BFloat16 arithmetic into a Float out (accumulating in float). A
  // predicate into another out dtype takes the converting path: a direct loop per dtype for it
  // cost a third of each comparison's bytes.
  const ScalarType direct_out = kPredicate ? ScalarType::Bool : common;
  const bool float_out =
      !kPredicate && out_type == ScalarType::Float && is_reduced_floating_type(common);
  if (a.dtype == common && b.dtype == common && (out_type == direct_out || float_out)) {
    const bool done = dispatch_fast_type<kCategories>(common, [&](auto tag) {
      using T = typename RowType<typename decltype(tag)::type, std::decay_t<MakeOp>>::type;
      using R = std::conditional_t<kPredicate, bool, T>;
      const auto op = make_op(T{});
      binary_rows<T, R>(ctx, plan, a.data, b.data, out_data, OpRow<decltype(op)>{op});
    });
    if (done) return;
    if constexpr ((kCategories & kIntegralTypes) != 0 && dtype_selected(ScalarType::Bool)) {
      // Bool computes as bytes. Operands are 0 or 1 (scalars such as alpha were rounded to Bool),
      // and no op reaching here (shifts refuse Bool) takes such values anywhere near 256, so
      // the uint8 result is nonzero exactly when the int64 one of the converting path is; it
      // stores as 0 or 1.
      if (common == ScalarType::Bool && out_type == ScalarType::Bool) {
        const auto op = make_op(uint8_t{});
        return binary_rows<uint8_t, bool>(ctx, plan, a.data, b.data, out_data,
                                          [&](auto... args) { binary_row(args..., op); });
      }
    }
    if constexpr ((kCategories & kFloatingTypes) != 0) {
      // An op with rare inputs takes the converting path, whose loops handle them.
      constexpr bool kRare = HasRareInputs<decltype(make_op(float{}))>::value;
      if (is_reduced_floating_type(common) && !kRare) {
        const auto op = make_op(float{});
        const auto row = [&](auto... args) { reduced_row(args..., op); };
        const auto run = [&](auto tag) {
          using T = typename decltype(tag)::type;
          using R = std::conditional_t<kPredicate, bool, T>;
          if constexpr (!kPredicate) {
            if (float_out) return binary_rows<T, float>(ctx, plan, a.data, b.data, out_data, row);
          }
          binary_rows<T, R>(ctx, plan, a.data, b.data, out_data, row);
        };
        // Unselected 16-bit floats take the converting path below.
        if constexpr (dtype_selected(ScalarType::Half)) {
          if (common == ScalarType::Half) return run(TypeTag<Half>{});
        }
        if constexpr (dtype_selected(ScalarType::BFloat16)) {
          if (common == ScalarType::BFloat16) return run(TypeTag<BFloat16>{});
        }
      }
    }
  }
  if constexpr ((kCategories & kFloatingTypes) != 0 && !kPredicate) {
    // A Half or BFloat16 tensor with an exact single-element b (mul, div by a scalar): b read
    // into float once, the tensor through reduced_row.
    constexpr bool kRare = HasRareInputs<decltype(make_op(float{}))>::value;
    if (!kRare && !round_b && a.dtype == common && (out_type == common || float_out)) {
      float b_value = 0.0f;
      convert_element(b.data, b.dtype, &b_value, ScalarType::Float);
      const auto op = make_op(float{});
      const auto row = [&](auto... args) { reduced_row(args..., op); };
      const auto run = [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (float_out) {
          binary_rows<T, float, float>(ctx, plan, a.data, &b_value, out_data, row);
        } else {
          binary_rows<T, T, float>(ctx, plan, a.data, &b_value, out_data, row);
        }
      };
      if constexpr (dtype_selected(ScalarType::Half)) {
        if (common == ScalarType::Half) return run(TypeTag<Half>{});
      }
      if constexpr (dtype_selected(ScalarType::BFloat16)) {
        if (common == ScalarType::BFloat16) return run(TypeTag<BFloat16>{});
      }
    }
  }
  dispatch_compute_type<kCategories>(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    binary_converting<C, kPredicate>(ctx, plan, a, b, round_b, common, out_data, out_type,
                                     make_op(C{}));
  });
}

}  // namespace detail

// out = op(a, b) elementwise over the broadcast of a and b. Preconditions (checked by the
// kernel): all dtypes supported, `common` is the promoted dtype, out already has the broadcast
// shape and a dtype `common` can be cast to. Values are computed in `common` (rounded there) and
// then converted to out's dtype, as ATen does. Code is generated only for dtypes in kCategories;
// `common` must be one of them. Large outputs are split over ctx's thread pool; the functor is
// then called from several threads at once.
template <unsigned kCategories = kAllTypes, ScalarOther kScalarOther = ScalarOther::kRound,
          typename MakeOp>
void apply_binary_op(const KernelRuntimeContext& ctx, ElementwiseInput a, ElementwiseInput b,
                     ScalarType common, Tensor& out, MakeOp&& make_op) {
  detail::apply_binary<false, kCategories, kScalarOther>(ctx, a, b, common, out, make_op);
}

// out = pred(a, b) for comparisons and logical ops: inputs convert to `common` as in
// apply_binary_op, pred returns bool, and out (of any dtype) receives 0 or 1.
template <unsigned kCategories = kAllTypes, ScalarOther kScalarOther = ScalarOther::kRound,
          typename MakePred>
void apply_binary_predicate(const KernelRuntimeContext& ctx, ElementwiseInput a, ElementwiseInput b,
                            ScalarType common, Tensor& out, MakePred&& make_pred) {
  detail::apply_binary<true, kCategories, kScalarOther>(ctx, a, b, common, out, make_pred);
}

}  // namespace kiln::portable
