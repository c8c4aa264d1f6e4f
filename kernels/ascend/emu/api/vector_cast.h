// Cast between vector dtypes with the documented round modes; unsupported pairs do not compile.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/ascend/emu/api/detail.h"
#include "kernels/ascend/emu/api/local_tensor.h"
#include "kernels/ascend/emu/api/vector_ops.h"

namespace AscendC {

enum class RoundMode {
  CAST_NONE = 0,  // exact when nothing is lost, else CAST_RINT
  CAST_RINT,      // to nearest, ties to even
  CAST_FLOOR,
  CAST_CEIL,
  CAST_ROUND,  // to nearest, ties away from zero
  CAST_TRUNC,
  CAST_ODD,  // to the neighbour with an odd last bit (von Neumann), float -> half only
};

}  // namespace AscendC

namespace kiln::ascend::emu::detail {

// The pairs the vector unit converts (Atlas A2 table), and whether a pair loses information.
template <class Dst, class Src>
inline constexpr bool kCastSupported =
    (std::is_same_v<Src, half> && kOneOf<Dst, float, int32_t>) ||
    (std::is_same_v<Src, float> && kOneOf<Dst, half, bfloat16_t, int32_t, float>) ||
    (std::is_same_v<Src, bfloat16_t> && std::is_same_v<Dst, float>) ||
    (std::is_same_v<Src, int32_t> && std::is_same_v<Dst, float>) ||
    (std::is_same_v<Src, int8_t> && std::is_same_v<Dst, half>);

// The round modes a pair takes, one bit per RoundMode, per SoC: the modes CANN 8.1.RC1's
// CastIntrinsicsImpl accepts (impl/dav_c220 and impl/dav_m200 kernel_operator_vec_vconv_impl.h).
// 0: the pair does not exist on that SoC. The mode is a run-time argument, so both are checked
// at run time against the selected SoC profile.
struct CastModes {
  uint32_t ascend910b;
  uint32_t ascend310p;
};

constexpr uint32_t round_mode_bit(AscendC::RoundMode mode) {
  return 1u << static_cast<uint32_t>(mode);
}

inline constexpr uint32_t kCastNoneOnly = round_mode_bit(AscendC::RoundMode::CAST_NONE);
// The modes that name a rounding; CAST_NONE and CAST_ODD excluded.
inline constexpr uint32_t kCastNamedRoundings =
    round_mode_bit(AscendC::RoundMode::CAST_RINT) | round_mode_bit(AscendC::RoundMode::CAST_FLOOR) |
    round_mode_bit(AscendC::RoundMode::CAST_CEIL) | round_mode_bit(AscendC::RoundMode::CAST_ROUND) |
    round_mode_bit(AscendC::RoundMode::CAST_TRUNC);

template <class Dst, class Src>
constexpr CastModes cast_modes() {
  constexpr uint32_t kNone = kCastNoneOnly;
  constexpr uint32_t kOdd = round_mode_bit(AscendC::RoundMode::CAST_ODD);
  if constexpr (std::is_same_v<Src, int8_t>) {
    // int8_t -> half is exact: CAST_NONE on both SoCs.
    return CastModes{kNone, kNone};
  } else if constexpr (std::is_same_v<Dst, float> && !std::is_same_v<Src, float>) {
    // Widening half/bfloat16 is exact; int32_t -> float rounds above 2^24, on 910B in any
    // named mode, on 310P only as CAST_NONE (to nearest even).
    return std::is_same_v<Src, int32_t> ? CastModes{kNone | kCastNamedRoundings, kNone}
                                        : CastModes{kNone, kNone};
  } else if constexpr (std::is_same_v<Dst, half>) {  // from float
    return CastModes{kNone | kOdd | kCastNamedRoundings, kNone | kOdd};
  } else if constexpr (std::is_same_v<Dst, float>) {  // float -> float: 910B only
    return CastModes{kCastNamedRoundings, 0};
  } else {  // to int32_t or bfloat16_t: a named rounding (bfloat16_t is 910B only anyway)
    return CastModes{kCastNamedRoundings, kCastNamedRoundings};
  }
}

void check_round_mode(const char* pair, CastModes modes, AscendC::RoundMode mode);

// Rounds x to an integer-valued float in `mode` (CAST_NONE behaves as CAST_RINT).
inline float round_integral(float x, AscendC::RoundMode mode) {
  switch (mode) {
    case AscendC::RoundMode::CAST_FLOOR:
      return std::floor(x);
    case AscendC::RoundMode::CAST_CEIL:
      return std::ceil(x);
    case AscendC::RoundMode::CAST_ROUND:
      return std::round(x);
    case AscendC::RoundMode::CAST_TRUNC:
      return std::trunc(x);
    default:
      return std::nearbyint(x);  // the default FP environment rounds to nearest even
  }
}

// The next representable 16-bit float (half or bfloat16) from `bits` towards +inf or -inf.
inline uint16_t next_16bit_float(uint16_t bits, bool up) {
  const bool negative = (bits & 0x8000u) != 0;
  if ((bits & 0x7fffu) == 0) return up ? 0x0001 : 0x8001;
  return static_cast<uint16_t>(negative == up ? bits - 1 : bits + 1);
}

// An inexact x rounded to one of its two neighbours low < x < high in a directed mode
// (CAST_FLOOR, CAST_CEIL, CAST_TRUNC) or else CAST_ROUND: the nearer one, a tie away from zero.
// The distances are exact in double for the narrowings that call it (V is half, bfloat16 or float).
template <class V>
V round_between(double x, const V& low, const V& high, AscendC::RoundMode mode) {
  const bool negative = x < 0;
  switch (mode) {
    case AscendC::RoundMode::CAST_FLOOR:
      return low;
    case AscendC::RoundMode::CAST_CEIL:
      return high;
    case AscendC::RoundMode::CAST_TRUNC:
      return negative ? high : low;
    default: {
      const double to_low = x - static_cast<double>(static_cast<float>(low));
      const double to_high = static_cast<double>(static_cast<float>(high)) - x;
      if (to_low != to_high) return to_low < to_high ? low : high;
      return negative ? low : high;
    }
  }
}

// float -> half/bfloat16 in any round mode: the nearest-even result tells which two neighbours
// bracket x, and the mode picks one.
template <class Narrow>
Narrow narrow_float(float x, AscendC::RoundMode mode) {
  const Narrow nearest(x);
  const float nearest_value = static_cast<float>(nearest);
  if (std::isnan(x) || nearest_value == x) return nearest;
  if (mode == AscendC::RoundMode::CAST_NONE || mode == AscendC::RoundMode::CAST_RINT) {
    return nearest;
  }
  Narrow low = nearest;
  Narrow high = nearest;
  if (nearest_value < x) {
    high = Narrow::from_bits(next_16bit_float(nearest.x, true));
  } else {
    low = Narrow::from_bits(next_16bit_float(nearest.x, false));
  }
  if (mode == AscendC::RoundMode::CAST_ODD) return (low.x & 1u) != 0 ? low : high;
  return round_between(x, low, high, mode);
}

inline int32_t saturate_int32(float x) {
  if (std::isnan(x)) return 0;
  if (x >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  if (x < -2147483648.0f) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(x);
}

template <class Dst, class Src>
Dst convert(const Src& value, AscendC::RoundMode mode) {
  if constexpr (std::is_same_v<Dst, int32_t>) {
    return saturate_int32(round_integral(static_cast<float>(value), mode));
  } else if constexpr (std::is_same_v<Src, float> && std::is_same_v<Dst, float>) {
    return mode == AscendC::RoundMode::CAST_NONE ? value : round_integral(value, mode);
  } else if constexpr (std::is_same_v<Src, float>) {
    return narrow_float<Dst>(value, mode);
  } else if constexpr (std::is_same_v<Src, int32_t>) {
    // int32 -> float loses bits above 2^24: round the exact double in the requested mode.
    const double exact = static_cast<double>(value);
    const float nearest = static_cast<float>(exact);
    if (static_cast<double>(nearest) == exact || mode == AscendC::RoundMode::CAST_NONE ||
        mode == AscendC::RoundMode::CAST_RINT) {
      return nearest;
    }
    const float low =
        static_cast<double>(nearest) < exact ? nearest : std::nextafter(nearest, -1e38f);
    const float high =
        static_cast<double>(nearest) > exact ? nearest : std::nextafter(nearest, 1e38f);
    return round_between(exact, low, high, mode);
  } else {
    return static_cast<Dst>(static_cast<float>(value));  // exact widening
  }
}

template <class Dst, class Src>
constexpr const char* cast_pair_name() {
  if constexpr (std::is_same_v<Src, half>) {
    return std::is_same_v<Dst, float> ? "half->float" : "half->int32_t";
  } else if constexpr (std::is_same_v<Src, bfloat16_t>) {
    return "bfloat16_t->float";
  } else if constexpr (std::is_same_v<Src, int32_t>) {
    return "int32_t->float";
  } else if constexpr (std::is_same_v<Src, int8_t>) {
    return "int8_t->half";
  } else if constexpr (std::is_same_v<Dst, half>) {
    return "float->half";
  } else if constexpr (std::is_same_v<Dst, bfloat16_t>) {
    return "float->bfloat16_t";
  } else if constexpr (std::is_same_v<Dst, int32_t>) {
    return "float->int32_t";
  } else {
    return "float->float";
  }
}

}  // namespace kiln::ascend::emu::detail

namespace AscendC {

template <class T, class U>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
          const uint32_t count) {
  static_assert(kiln::ascend::emu::detail::kCastSupported<T, U>,
                "Cast: the vector unit does not convert this source/destination type pair "
                "(supported: half->float/int32_t, float->half/bfloat16_t/int32_t/float, "
                "bfloat16_t->float, int32_t->float, int8_t->half)");
  namespace detail = kiln::ascend::emu::detail;
  detail::require_dtype<T>("Cast");
  detail::require_dtype<U>("Cast");
  detail::check_round_mode(detail::cast_pair_name<T, U>(), detail::cast_modes<T, U>(), roundMode);
  detail::VectorCall call("Cast", static_cast<int32_t>(count));
  T* out = call.dst(dst);
  const U* in = call.src(src, "src");
  for (uint32_t i = 0; i < call.count(); ++i) {
    out[i] = call.out_value(detail::convert<T, U>(in[i], roundMode));
  }
}

}  // namespace AscendC
