// Unary elementwise driver: out = op(self) computed in a chosen dtype, with clamp-like helpers.
//
// A kernel checks its arguments, resizes `out`, picks the dtype the op computes in (`common`:
// self's dtype, or Float for integer inputs of floating functions) and hands a functor factory to
// apply_unary: make_op(T{}) returns the functor for element type T. When self, common and out
// share a dtype with a fast path, one multiversioned loop runs over the whole tensor; otherwise
// chunks are converted into compute-type buffers, mapped, rounded to `common` and stored.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/elementwise/math_loop.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "kernels/portable/cpu/util/vec/rare_inputs.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Elements converted per chunk on the converting path (two buffers on the stack).
constexpr int64_t kUnaryChunk = 512;

namespace detail {

// The hot loop of every unary op. An op with rare inputs (vec/rare_inputs.h) maps block by block.
template <typename In, typename Out, typename Op>
KILN_ALWAYS_INLINE void unary_map(const In* in, Out* out, int64_t n, Op op) {
  if constexpr (HasRareInputs<Op>::value) {
    for (int64_t start = 0; start < n; start += kRareScanBlock) {
      const int64_t end = n - start < kRareScanBlock ? n : start + kRareScanBlock;
      unsigned rare = 0;
      for (int64_t i = start; i < end; ++i) rare |= static_cast<unsigned>(op.rare(in[i]));
      if (rare == 0) {
        for (int64_t i = start; i < end; ++i) out[i] = op(in[i]);
      } else if constexpr (HasWider<Op>::value) {
        unary_map(in + start, out + start, end - start, op.wider());
      } else if constexpr (ExactVectorises<Op>::value) {
        for (int64_t i = start; i < end; ++i) out[i] = op.exact(in[i]);
      } else {
        for (int64_t i = start; i < end; ++i) out[i] = op.rare(in[i]) ? op.exact(in[i]) : op(in[i]);
      }
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = op(in[i]);
  }
}

// Its clones: float loops, which vectorise the transcendental functions of vec/float_math.h, also
// get an AVX-512 one, and so do double loops of VectorMath ops (elementwise/math_loop.h); the
// others (double calling the C library, integers, which are memory-bound) do not pay for its bytes.
template <typename In, typename Out, typename Op>
KILN_MATH_LOOP void unary_math_loop(const In* in, Out* out, int64_t n, Op op) {
  unary_map(in, out, n, op);
}
template <typename In, typename Out, typename Op>
KILN_HOT_LOOP void unary_plain_loop(const In* in, Out* out, int64_t n, Op op) {
  unary_map(in, out, n, op);
}
template <typename In, typename Out, typename Op>
void unary_loop(const In* in, Out* out, int64_t n, Op op) {
  constexpr bool kFloat = std::is_same_v<In, float> && std::is_same_v<Out, float>;
  constexpr bool kDouble =
      std::is_same_v<In, double> && std::is_same_v<Out, double> && VectorMath<Op>::value;
  if constexpr (kFloat || kDouble) {
    unary_math_loop(in, out, n, op);
  } else {
    unary_plain_loop(in, out, n, op);
  }
}

// Half or BFloat16 values through a float op, rounded back to T and stored as T or as float, a
// chunk at a time: widened into a float buffer (vec/convert.h's rows, F16C where the CPU has it),
// mapped by the float loop (with its AVX-512 clone for the math functions), narrowed back.
template <typename T, typename Out, typename Op>
void reduced_unary_loop(const T* in, Out* out, int64_t n, Op op) {
  float x[kUnaryChunk];
  for (int64_t start = 0; start < n; start += kUnaryChunk) {
    const int64_t m = n - start < kUnaryChunk ? n - start : kUnaryChunk;
    widen_row(in + start, x, m);
    if constexpr (std::is_same_v<Out, float>) {
      unary_loop(x, out + start, m, op);
      round_floats_to<T>(out + start, m);
    } else {
      unary_loop(x, x, m, op);
      narrow_row(x, out + start, m);
    }
  }
}

// Whether a float functor also maps a 16-bit float's bit pattern exactly: `bits(uint16_t)`, for
// sign-bit operations (SignBitOp).
template <typename Op, typename = void>
struct MapsFloat16Bits : std::false_type {};
template <typename Op>
struct MapsFloat16Bits<Op, std::void_t<decltype(std::declval<const Op&>().bits(uint16_t{}))>>
    : std::true_type {};

// Runs Op::bits over the 16-bit patterns of Half or BFloat16 elements: no float round trip, and
// a plain integer loop that vectorises as wide as the clone allows.
template <typename Op>
KILN_HOT_LOOP void float16_bits_loop(const uint16_t* in, uint16_t* out, int64_t n, Op op) {
  for (int64_t i = 0; i < n; ++i) out[i] = op.bits(in[i]);
}

// Runs reduced_unary_loop when self and `common` are Half or BFloat16 and out is that dtype or
// Float (the common cases), or float16_bits_loop for a functor that maps bit patterns and an out
// of self's dtype; returns false otherwise.
template <typename MakeOp>
bool reduced_unary(const KernelRuntimeContext& ctx, const Tensor& self, ScalarType common,
                   Tensor& out, MakeOp& make_op) {
  using FloatOp = decltype(make_op(0.0f));
  if constexpr (MapsFloat16Bits<FloatOp>::value) {
    const ScalarType type = self.scalar_type();
    if ((type == ScalarType::Half || type == ScalarType::BFloat16) && type == common &&
        out.scalar_type() == type) {
      // Both dtypes are 16-bit patterns here, so this needs no dtype dispatch.
      const auto* in = static_cast<const uint16_t*>(self.const_data_ptr());
      auto* result = static_cast<uint16_t*>(out.mutable_data_ptr());
      const FloatOp op = make_op(0.0f);
      parallel_for(
          ctx, 0, self.numel(), kElementwiseGrain,
          [&](int64_t begin, int64_t end) {
            float16_bits_loop(in + begin, result + begin, end - begin, op);
          },
          kParallelAlign);
      return true;
    }
  }
  // An op with rare inputs takes the converting path, whose loop handles them.
  if constexpr (HasRareInputs<FloatOp>::value) return false;
  const ScalarType in_type = self.scalar_type();
  const ScalarType out_type = out.scalar_type();
  if (in_type != common || (out_type != in_type && out_type != ScalarType::Float)) return false;
  const int64_t n = self.numel();
  const auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = self.const_data_ptr<T>();
    const auto op = make_op(0.0f);
    parallel_for(
        ctx, 0, n, kElementwiseGrain,
        [&](int64_t begin, int64_t end) {
          if (out_type == ScalarType::Float) {
            reduced_unary_loop(in + begin, out.mutable_data_ptr<float>() + begin, end - begin, op);
          } else {
            reduced_unary_loop(in + begin, out.mutable_data_ptr<T>() + begin, end - begin, op);
          }
        },
        kParallelAlign);
    return true;
  };
  // Unselected 16-bit floats take the converting path.
  if constexpr (dtype_selected(ScalarType::Half)) {
    if (in_type == ScalarType::Half) return run(TypeTag<Half>{});
  }
  if constexpr (dtype_selected(ScalarType::BFloat16)) {
    if (in_type == ScalarType::BFloat16) return run(TypeTag<BFloat16>{});
  }
  return false;
}

// The loops for self, `common` and out of one dtype: a fast type's own loop, or Half and
// BFloat16 through float (reduced_unary). Returns false for the other cases.
template <unsigned kCategories, typename MakeOp>
bool same_dtype_unary(const KernelRuntimeContext& ctx, const Tensor& self, ScalarType common,
                      Tensor& out, MakeOp& make_op) {
  if (self.scalar_type() == common && out.scalar_type() == common &&
      dispatch_fast_type<kCategories>(common, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* in = self.const_data_ptr<T>();
        T* result = out.mutable_data_ptr<T>();
        const auto op = make_op(T{});
        parallel_for(
            ctx, 0, self.numel(), kElementwiseGrain,
            [&](int64_t begin, int64_t end) {
              unary_loop(in + begin, result + begin, end - begin, op);
            },
            kParallelAlign);
      })) {
    return true;
  }
  if constexpr ((kCategories & kFloatingTypes) != 0) {
    return reduced_unary(ctx, self, common, out, make_op);
  }
  return false;
}

}  // namespace detail

// apply_unary for an op whose out has self's dtype (relu, abs, neg), which the caller checked,
// and which is not Bool: only the same-dtype loops are compiled, not apply_unary's converting
// loops for each compute type, which such an op would reach only for a dtype the dtype selection
// compiled out, so they would be code that never runs. That dtype fails with NotSupported, naming
// `op_name`.
template <typename MakeOp>
void apply_same_dtype_unary(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out,
                            const char* op_name, MakeOp&& make_op) {
  static_assert(!HasRareInputs<decltype(make_op(0.0f))>::value,
                "Half and BFloat16 reach an op with rare inputs through apply_unary's converting "
                "path only");
  const ScalarType dtype = self.scalar_type();
  if (self.numel() == 0 || detail::same_dtype_unary<kAllTypes>(ctx, self, dtype, out, make_op)) {
    return;
  }
  fail_dtype_compiled_out(ctx, dtype, op_name);
}

// out = op(self) elementwise over same-shape contiguous tensors. self is converted to dtype
// `common` (as ATen casts inputs to the common dtype), the op runs in common's compute type and
// its results are rounded to `common`, then converted to out's dtype. Code is generated only for
// the dtype categories in kCategories; `common` must be one of them. Large tensors are split
// over ctx's thread pool; the functor is then called from several threads at once.
template <unsigned kCategories = kAllTypes, typename MakeOp>
void apply_unary(const KernelRuntimeContext& ctx, const Tensor& self, ScalarType common,
                 Tensor& out, MakeOp&& make_op) {
  const int64_t n = self.numel();
  if (n == 0 || detail::same_dtype_unary<kCategories>(ctx, self, common, out, make_op)) return;
  const ScalarType in_type = self.scalar_type();
  const ScalarType out_type = out.scalar_type();
  if constexpr ((kCategories & kIntegralTypes) != 0 && dtype_selected(ScalarType::Bool)) {
    // Bool computes as bytes, 0 and 1, each result stored as 0 or 1 (logical_not, sign, isnan),
    // rather than through the converting path's int64 buffers, which move eight times the bytes.
    if (common == ScalarType::Bool && in_type == ScalarType::Bool && out_type == ScalarType::Bool) {
      const auto* in = static_cast<const uint8_t*>(self.const_data_ptr());
      auto* result = static_cast<uint8_t*>(out.mutable_data_ptr());
      const auto op = make_op(uint8_t{});
      const auto as_bool = [&op](uint8_t x) { return static_cast<uint8_t>(op(x) != 0); };
      parallel_for(
          ctx, 0, n, kElementwiseGrain,
          [&](int64_t begin, int64_t end) {
            detail::unary_loop(in + begin, result + begin, end - begin, as_bool);
          },
          kParallelAlign);
      return;
    }
  }
  dispatch_compute_type<kCategories>(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    constexpr ScalarType kComputeType = CppToScalarType<C>::value;
    const auto op = make_op(C{});
    // An operand that already holds C values of dtype `common` is used in place.
    const bool in_direct = in_type == kComputeType && common == kComputeType;
    const bool out_direct = out_type == kComputeType && common == kComputeType;
    const char* src = static_cast<const char*>(self.const_data_ptr());
    char* dst = static_cast<char*>(out.mutable_data_ptr());
    const size_t in_size = element_size(in_type);
    const size_t out_size = element_size(out_type);
    const auto convert_range = [&](int64_t begin, int64_t end) {
      C in_buf[kUnaryChunk];
      C out_buf[kUnaryChunk];
      for (int64_t start = begin; start < end; start += kUnaryChunk) {
        const int64_t m = end - start < kUnaryChunk ? end - start : kUnaryChunk;
        const char* in_row = src + start * in_size;
        char* out_row = dst + start * out_size;
        if (!in_direct) load_row_as<C>(in_row, in_type, 1, m, common, in_buf);
        const C* x = in_direct ? reinterpret_cast<const C*>(in_row) : in_buf;
        C* y = out_direct ? reinterpret_cast<C*>(out_row) : out_buf;
        detail::unary_loop(x, y, m, op);
        if (!out_direct) store_row_as<C>(out_buf, m, common, out_type, out_row);
      }
    };
    parallel_for(ctx, 0, n, kElementwiseGrain, convert_range, kParallelAlign);
  });
}

// min(max(x, lo), hi) that keeps a NaN x (lo > hi gives hi, as in ATen). Floating values use bit
// selects so loops vectorise.
template <typename T>
inline T clamp_value(T x, T lo, T hi) {
  if constexpr (std::is_integral_v<T>) {
    const T low = x < lo ? lo : x;
    return low > hi ? hi : low;
  } else {
    const T low = select(x < lo, lo, x);
    return select(low > hi, hi, low);
  }
}

// clamp to [lo, hi] as a functor; a NaN limit makes every element NaN, as in ATen.
template <typename T>
struct ClampOp {
  T lo;
  T hi;
  bool nan_limit;
  T fill;

  ClampOp(T low, T high)
      : lo(low), hi(high), nan_limit(low != low || high != high), fill(low != low ? low : high) {}
  // Branch-free: a test of nan_limit inside the loop would keep it scalar (the kernels compile
  // without loop unswitching). Integers have no NaN.
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return clamp_value(x, lo, hi);
    } else {
      return select(nan_limit, fill, clamp_value(x, lo, hi));
    }
  }
};

// |x| (kClear) or -x (kFlip) of a floating x. Half and BFloat16 apply it to the sign bit of their
// pattern (MapsFloat16Bits), as ATen's vector loops do: exact for every value, NaN payloads kept.
enum class SignBit { kClear, kFlip };
template <typename T, SignBit kOp>
struct SignBitOp {
  T operator()(T x) const {
    if constexpr (kOp == SignBit::kClear) {
      return std::fabs(x);
    } else {
      return -x;
    }
  }
  uint16_t bits(uint16_t x) const {
    constexpr uint16_t kSign = 0x8000u;
    return static_cast<uint16_t>(kOp == SignBit::kClear ? x & ~kSign : x ^ kSign);
  }
};

// The smallest and largest values of T (infinities for floating types): a missing clamp limit.
template <typename T>
constexpr T lowest_value() {
  if constexpr (std::is_floating_point_v<T>) {
    return -std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::lowest();
  }
}
template <typename T>
constexpr T highest_value() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::max();
  }
}

// Whether `scalar` converts to dtype `type` without overflow under ATen's checked conversion of
// scalar arguments: for integer dtypes a floating value must be finite and within range (it is
// then truncated); infinities and NaN fit floating dtypes. Reports the overflow through ctx.
bool check_scalar_converts(KernelRuntimeContext& ctx, const Scalar& scalar, ScalarType type,
                           const char* name);

// The value of `scalar` converted to element type T (a dtype's own type or its compute type) as
// ATen converts scalar arguments: floating values truncate toward zero for integer types.
template <typename T>
inline T scalar_value(const Scalar& scalar) {
  if constexpr (std::is_integral_v<T>) {
    return scalar.isFloatingPoint() ? static_cast<T>(static_cast<int64_t>(scalar.toDouble()))
                                    : static_cast<T>(scalar.toInt());
  } else {
    return static_cast<T>(scalar.toDouble());
  }
}

}  // namespace kiln::portable
