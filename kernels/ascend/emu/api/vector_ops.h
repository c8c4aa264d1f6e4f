// Element-wise vector APIs (level-2 count forms): binary, unary, with a scalar, Duplicate.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/ascend/emu/api/detail.h"
#include "kernels/ascend/emu/api/local_tensor.h"

namespace kiln::ascend::emu::detail {

// The vector unit computes half in float and rounds every result to nearest even on the store;
// integers wrap. Compute<T> is the arithmetic type, store() the rounding store.
template <class T>
using Compute = std::conditional_t<std::is_integral_v<T>, int64_t, float>;

template <class T>
inline Compute<T> load(const T& value) {
  return static_cast<Compute<T>>(value);
}

template <class T>
inline T store(Compute<T> value) {
  return static_cast<T>(value);
}

// Whether the current SoC saturates floating vector results (SocProfile::saturates_float).
bool saturation_mode();

// A floating result in saturation mode: inf becomes the largest finite value of its sign, NaN 0.
template <class T>
inline T saturate(const T& value) {
  if constexpr (std::is_integral_v<T>) {
    return value;
  } else {
    const float f = static_cast<float>(value);
    if (std::isnan(f)) return T(0.0f);
    if (std::isinf(f)) {
      const T largest = std::numeric_limits<T>::max();
      return f > 0 ? largest : T(-static_cast<float>(largest));
    }
    return value;
  }
}

// Checks the operands of one vector instruction and counts it.
class VectorCall {
 public:
  VectorCall(const char* api, int32_t count);
  // The vector unit writes dst after reading every source.
  ~VectorCall() {
    if (dst_ != nullptr) note_ub_access(*dst_, 0, dst_bytes_, UbPipe::V, true, api_, "dst");
  }
  VectorCall(const VectorCall&) = delete;
  VectorCall& operator=(const VectorCall&) = delete;

  template <class T>
  T* dst(const AscendC::LocalTensor<T>& tensor) {
    check_local(tensor.ref(), api_, "dst", 0, count_, sizeof(T), 32);
    dst_ = &tensor.ref();
    dst_bytes_ = uint64_t{count_} * sizeof(T);
    return tensor.data();
  }

  template <class T>
  const T* src(const AscendC::LocalTensor<T>& tensor, const char* role) {
    check_local(tensor.ref(), api_, role, 0, count_, sizeof(T), 32);
    if (dst_ != nullptr) {
      check_overlap(api_, "dst", *dst_, dst_bytes_, role, tensor.ref(),
                    uint64_t{count_} * sizeof(T));
    }
    note_ub_access(tensor.ref(), 0, uint64_t{count_} * sizeof(T), UbPipe::V, false, api_, role);
    return tensor.data();
  }

  uint32_t count() const { return count_; }

  // A result as the vector unit stores it: rounded to T, saturated in saturation mode.
  template <class T>
  T out(Compute<T> value) const {
    const T stored = store<T>(value);
    return saturates_ ? saturate(stored) : stored;
  }
  template <class T>
  T out_value(const T& value) const {
    return saturates_ ? saturate(value) : value;
  }

 private:
  const char* api_;
  uint32_t count_;
  bool saturates_;
  const LocalRef* dst_ = nullptr;
  uint64_t dst_bytes_ = 0;
};

template <class T, class Op>
void binary(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
            const AscendC::LocalTensor<T>& b, int32_t count, Op op) {
  VectorCall call(api, count);
  T* out = call.dst(dst);
  const T* x = call.src(a, "src0");
  const T* y = call.src(b, "src1");
  for (uint32_t i = 0; i < call.count(); ++i) out[i] = call.out<T>(op(load(x[i]), load(y[i])));
}

template <class T, class Op>
void unary(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
           int32_t count, Op op) {
  VectorCall call(api, count);
  T* out = call.dst(dst);
  const T* x = call.src(a, "src");
  for (uint32_t i = 0; i < call.count(); ++i) out[i] = call.out<T>(op(load(x[i])));
}

template <class T>
inline constexpr bool kArithmetic = kOneOf<T, half, float, int16_t, int32_t>;
template <class T>
inline constexpr bool kFloating = kOneOf<T, half, float>;

}  // namespace kiln::ascend::emu::detail

#define KILN_EMU_ARITHMETIC_TYPES(api)                             \
  static_assert(kiln::ascend::emu::detail::kArithmetic<T>, api     \
                " takes half, float, int16_t or int32_t operands " \
                "(bfloat16_t only through Cast, DataCopy and Duplicate)")
// As on the device, a scalar operand has the tensors' element type: half(2.0f), not 2.0f.
#define KILN_EMU_SCALAR_TYPE(api)                           \
  static_assert(std::is_same_v<U, T>, api                   \
                ": the scalar must have the tensor's type " \
                "(write half(2.0f) for a half tensor)")
#define KILN_EMU_FLOATING_TYPES(api)                         \
  static_assert(kiln::ascend::emu::detail::kFloating<T>, api \
                " takes half or float operands "             \
                "(cast other types first)")

namespace AscendC {

template <class T>
void Add(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const int32_t& count) {
  KILN_EMU_ARITHMETIC_TYPES("Add");
  kiln::ascend::emu::detail::binary("Add", dst, src0, src1, count,
                                    [](auto a, auto b) { return a + b; });
}

template <class T>
void Sub(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const int32_t& count) {
  KILN_EMU_ARITHMETIC_TYPES("Sub");
  kiln::ascend::emu::detail::binary("Sub", dst, src0, src1, count,
                                    [](auto a, auto b) { return a - b; });
}

template <class T>
void Mul(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const int32_t& count) {
  KILN_EMU_ARITHMETIC_TYPES("Mul");
  kiln::ascend::emu::detail::binary("Mul", dst, src0, src1, count,
                                    [](auto a, auto b) { return a * b; });
}

template <class T>
void Div(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const int32_t& count) {
  KILN_EMU_FLOATING_TYPES("Div");
  kiln::ascend::emu::detail::binary("Div", dst, src0, src1, count,
                                    [](auto a, auto b) { return a / b; });
}

template <class T>
void Max(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const int32_t& count) {
  KILN_EMU_ARITHMETIC_TYPES("Max");
  kiln::ascend::emu::detail::binary("Max", dst, src0, src1, count,
                                    [](auto a, auto b) { return a > b ? a : b; });
}

template <class T>
void Min(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const int32_t& count) {
  KILN_EMU_ARITHMETIC_TYPES("Min");
  kiln::ascend::emu::detail::binary("Min", dst, src0, src1, count,
                                    [](auto a, auto b) { return a < b ? a : b; });
}

template <class T>
void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  KILN_EMU_FLOATING_TYPES("Exp");
  kiln::ascend::emu::detail::unary("Exp", dst, src, count, [](float a) { return std::exp(a); });
}

template <class T>
void Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  KILN_EMU_FLOATING_TYPES("Ln");
  kiln::ascend::emu::detail::unary("Ln", dst, src, count, [](float a) { return std::log(a); });
}

template <class T>
void Sqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  KILN_EMU_FLOATING_TYPES("Sqrt");
  kiln::ascend::emu::detail::unary("Sqrt", dst, src, count, [](float a) { return std::sqrt(a); });
}

template <class T>
void Rsqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  KILN_EMU_FLOATING_TYPES("Rsqrt");
  kiln::ascend::emu::detail::unary("Rsqrt", dst, src, count,
                                   [](float a) { return 1.0f / std::sqrt(a); });
}

template <class T>
void Reciprocal(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  KILN_EMU_FLOATING_TYPES("Reciprocal");
  kiln::ascend::emu::detail::unary("Reciprocal", dst, src, count, [](float a) { return 1.0f / a; });
}

template <class T>
void Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  // CANN 8.1.RC1 (dav_c220 and dav_m200 kernel_operator_vec_unary_impl.h): half and float only.
  static_assert(kiln::ascend::emu::detail::kFloating<T>,
                "Abs takes half or float operands on 910B and 310P (for int32_t: "
                "Max(x, -x) with Muls and Max)");
  kiln::ascend::emu::detail::unary("Abs", dst, src, count, [](auto a) { return a < 0 ? -a : a; });
}

template <class T>
void Relu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  static_assert(kiln::ascend::emu::detail::kOneOf<T, half, float, int32_t>,
                "Relu takes half, float or int32_t operands");
  kiln::ascend::emu::detail::unary("Relu", dst, src, count,
                                   [](auto a) { return a > 0 ? a : decltype(a){0}; });
}

template <class T, class U>
void Adds(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,
          const int32_t& count) {
  KILN_EMU_ARITHMETIC_TYPES("Adds");
  KILN_EMU_SCALAR_TYPE("Adds");
  const auto s = kiln::ascend::emu::detail::load<T>(scalarValue);
  kiln::ascend::emu::detail::unary("Adds", dst, src, count, [s](auto a) { return a + s; });
}

template <class T, class U>
void Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,
          const int32_t& count) {
  KILN_EMU_ARITHMETIC_TYPES("Muls");
  KILN_EMU_SCALAR_TYPE("Muls");
  const auto s = kiln::ascend::emu::detail::load<T>(scalarValue);
  kiln::ascend::emu::detail::unary("Muls", dst, src, count, [s](auto a) { return a * s; });
}

template <class T, class U>
void Maxs(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,
          const int32_t& count) {
  KILN_EMU_ARITHMETIC_TYPES("Maxs");
  KILN_EMU_SCALAR_TYPE("Maxs");
  const auto s = kiln::ascend::emu::detail::load<T>(scalarValue);
  kiln::ascend::emu::detail::unary("Maxs", dst, src, count, [s](auto a) { return a > s ? a : s; });
}

template <class T, class U>
void Mins(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,
          const int32_t& count) {
  KILN_EMU_ARITHMETIC_TYPES("Mins");
  KILN_EMU_SCALAR_TYPE("Mins");
  const auto s = kiln::ascend::emu::detail::load<T>(scalarValue);
  kiln::ascend::emu::detail::unary("Mins", dst, src, count, [s](auto a) { return a < s ? a : s; });
}

template <class T, class U>
void Duplicate(const LocalTensor<T>& dst, const U& scalarValue, const int32_t& count) {
  KILN_EMU_SCALAR_TYPE("Duplicate");
  static_assert(kiln::ascend::emu::detail::kOneOf<T, half, bfloat16_t, float, int16_t, uint16_t,
                                                  int32_t, uint32_t>,
                "Duplicate takes half, bfloat16_t, float or 16/32-bit integer operands");
  kiln::ascend::emu::detail::require_dtype<T>("Duplicate");
  kiln::ascend::emu::detail::VectorCall call("Duplicate", count);
  T* out = call.dst(dst);
  const T value = scalarValue;
  for (uint32_t i = 0; i < call.count(); ++i) out[i] = value;
}

}  // namespace AscendC

#undef KILN_EMU_ARITHMETIC_TYPES
#undef KILN_EMU_FLOATING_TYPES
#undef KILN_EMU_SCALAR_TYPE
