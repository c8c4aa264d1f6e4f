// Compare (to a bit mask) and Select (by a bit mask), level-2 count forms.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/ascend/emu/api/detail.h"
#include "kernels/ascend/emu/api/local_tensor.h"
#include "kernels/ascend/emu/api/vector_ops.h"

namespace AscendC {

enum class CMPMODE { LT, GT, EQ, LE, GE, NE };
enum class SELMODE { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

}  // namespace AscendC

namespace kiln::ascend::emu::detail {

template <class V>
inline bool compare(V a, V b, AscendC::CMPMODE mode) {
  switch (mode) {
    case AscendC::CMPMODE::LT:
      return a < b;
    case AscendC::CMPMODE::GT:
      return a > b;
    case AscendC::CMPMODE::EQ:
      return a == b;
    case AscendC::CMPMODE::LE:
      return a <= b;
    case AscendC::CMPMODE::GE:
      return a >= b;
    default:
      return a != b;
  }
}

// The mask holds one bit per element, element i in bit i % 8 of byte i / 8.
template <class U>
uint8_t* mask_bytes(VectorCall& call, const char* api, const AscendC::LocalTensor<U>& mask,
                    const char* role) {
  static_assert(kOneOf<U, uint8_t, int8_t, uint16_t, uint32_t, uint64_t>,
                "the compare mask is a tensor of 8 to 64-bit integers");
  const uint64_t bytes = (call.count() + 7) / 8;
  check_local(mask.ref(), api, role, 0, (bytes + sizeof(U) - 1) / sizeof(U), sizeof(U), 32);
  // Compare writes its mask (role "dst"); Select reads it.
  const bool write = role[0] == 'd';
  note_ub_access(mask.ref(), 0, bytes, UbPipe::V, write, api, role);
  return reinterpret_cast<uint8_t*>(mask.data());
}

void require_select_mode(AscendC::SELMODE mode, AscendC::SELMODE expected);

// int32_t operands of Compare/CompareScalar: CANN 8.1.RC1 compares them on 910B (dav_c220), with
// CMPMODE::EQ only, and not on 310P (dav_m200 has no int32_t compare).
void require_int32_compare(const char* api, AscendC::CMPMODE mode);

template <class T>
inline constexpr bool kComparable = kOneOf<T, half, float, int32_t>;

// CANN's level-2 Compare and CompareScalar (dav_c220 and dav_m200) issue count * sizeof(T) / 256
// whole repeats: a partial last repeat is not compared and its mask bits are not written.
void check_compare_count(const char* api, uint32_t count, uint32_t elem_size);

}  // namespace kiln::ascend::emu::detail

namespace AscendC {

// dst bit i = src0[i] <cmpMode> src1[i].
template <class T, class U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             CMPMODE cmpMode, uint32_t count) {
  static_assert(kiln::ascend::emu::detail::kComparable<T>,
                "Compare takes half or float operands (int32_t on 910B, CMPMODE::EQ only)");
  // CANN 8.1.RC1 (inner_kernel_operator_vec_cmpsel_intf.cppm) writes the mask as (u)int8 bytes
  // on 910B and 310P; Select reads wider masks, Compare does not write them.
  static_assert(kiln::ascend::emu::detail::kOneOf<U, uint8_t, int8_t>,
                "Compare: the mask dst is a LocalTensor<uint8_t> or <int8_t> on 910B and 310P");
  namespace detail = kiln::ascend::emu::detail;
  detail::VectorCall call("Compare", static_cast<int32_t>(count));
  detail::check_compare_count("Compare", count, sizeof(T));
  if constexpr (std::is_same_v<T, int32_t>) detail::require_int32_compare("Compare", cmpMode);
  const T* a = call.src(src0, "src0");
  const T* b = call.src(src1, "src1");
  uint8_t* bits = detail::mask_bytes(call, "Compare", dst, "dst");
  for (uint32_t i = 0; i < count; i += 8) {
    uint8_t byte = 0;
    for (uint32_t j = 0; j < 8 && i + j < count; ++j) {
      if (detail::compare(detail::load(a[i + j]), detail::load(b[i + j]), cmpMode)) {
        byte |= static_cast<uint8_t>(1u << j);
      }
    }
    bits[i / 8] = byte;
  }
}

// dst bit i = src0[i] <cmpMode> scalar.
template <class T, class U, class S>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const S src1Scalar,
                   CMPMODE cmpMode, uint32_t count) {
  static_assert(kiln::ascend::emu::detail::kComparable<T>,
                "CompareScalar takes half or float operands (int32_t on 910B, CMPMODE::EQ only)");
  static_assert(std::is_same_v<S, T>,
                "CompareScalar: the scalar must have the tensor's type (half(0.0f) for half)");
  static_assert(kiln::ascend::emu::detail::kOneOf<U, uint8_t, int8_t>,
                "CompareScalar: the mask dst is a LocalTensor<uint8_t> or <int8_t> on 910B and "
                "310P");
  namespace detail = kiln::ascend::emu::detail;
  detail::VectorCall call("CompareScalar", static_cast<int32_t>(count));
  detail::check_compare_count("CompareScalar", count, sizeof(T));
  if constexpr (std::is_same_v<T, int32_t>) {
    detail::require_int32_compare("CompareScalar", cmpMode);
  }
  const T* a = call.src(src0, "src0");
  uint8_t* bits = detail::mask_bytes(call, "CompareScalar", dst, "dst");
  const auto s = detail::load<T>(src1Scalar);
  for (uint32_t i = 0; i < count; i += 8) {
    uint8_t byte = 0;
    for (uint32_t j = 0; j < 8 && i + j < count; ++j) {
      if (detail::compare(detail::load(a[i + j]), s, cmpMode)) {
        byte |= static_cast<uint8_t>(1u << j);
      }
    }
    bits[i / 8] = byte;
  }
}

template <class T, class U, class S>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const S src1Scalar,
              CMPMODE cmpMode, uint32_t count) {
  CompareScalar(dst, src0, src1Scalar, cmpMode, count);
}

// dst[i] = mask bit i ? src0[i] : src1[i] (SELMODE::VSEL_TENSOR_TENSOR_MODE).
template <class T, class U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint32_t count) {
  static_assert(kiln::ascend::emu::detail::kFloating<T>, "Select takes half or float operands");
  namespace detail = kiln::ascend::emu::detail;
  detail::require_select_mode(selMode, SELMODE::VSEL_TENSOR_TENSOR_MODE);
  detail::VectorCall call("Select", static_cast<int32_t>(count));
  T* out = call.dst(dst);
  const T* a = call.src(src0, "src0");
  const T* b = call.src(src1, "src1");
  const uint8_t* bits = detail::mask_bytes(call, "Select", selMask, "selMask");
  for (uint32_t i = 0; i < count; ++i) out[i] = (bits[i / 8] >> (i % 8)) & 1u ? a[i] : b[i];
}

// dst[i] = mask bit i ? src0[i] : scalar (SELMODE::VSEL_TENSOR_SCALAR_MODE).
template <class T, class U, class S>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const S src1Scalar, SELMODE selMode, uint32_t count) {
  static_assert(kiln::ascend::emu::detail::kFloating<T>, "Select takes half or float operands");
  static_assert(std::is_same_v<S, T>,
                "Select: the scalar must have the tensor's type (half(0.0f) for half)");
  namespace detail = kiln::ascend::emu::detail;
  detail::require_select_mode(selMode, SELMODE::VSEL_TENSOR_SCALAR_MODE);
  detail::VectorCall call("Select", static_cast<int32_t>(count));
  T* out = call.dst(dst);
  const T* a = call.src(src0, "src0");
  const uint8_t* bits = detail::mask_bytes(call, "Select", selMask, "selMask");
  const T scalar = src1Scalar;
  for (uint32_t i = 0; i < count; ++i) out[i] = (bits[i / 8] >> (i % 8)) & 1u ? a[i] : scalar;
}

}  // namespace AscendC
