// The elementwise functors of sin, cos and tan: float runs the vectorisable functions of
// vec_trig.h, whose argument reduction is exact below kTrigReduceLimit; arguments at or past it
// (infinities included) are rare inputs (rare_inputs.h), and the blocks holding one take the C
// library's function, which reduces any argument exactly. Double takes the C library's.
#pragma once

#include <cmath>

#include "kernels/portable/cpu/util/vec_trig.h"

namespace kiln::portable {

template <float (*kFast)(float), float (*kExactFloat)(float), double (*kExactDouble)(double)>
struct ReducedTrig {
  static constexpr bool kHasRareInputs = true;
  float operator()(float x) const { return kFast(x); }
  double operator()(double x) const { return kExactDouble(x); }
  bool rare(float x) const { return std::fabs(x) >= kTrigReduceLimit; }
  bool rare(double) const { return false; }
  float exact(float x) const { return kExactFloat(x); }
  double exact(double x) const { return kExactDouble(x); }
};

namespace detail {
inline float sin_exact(float x) { return std::sin(x); }
inline double sin_exact(double x) { return std::sin(x); }
inline float cos_exact(float x) { return std::cos(x); }
inline double cos_exact(double x) { return std::cos(x); }
inline float tan_exact(float x) { return std::tan(x); }
inline double tan_exact(double x) { return std::tan(x); }
}  // namespace detail

using Sin = ReducedTrig<sin_float, detail::sin_exact, detail::sin_exact>;
using Cos = ReducedTrig<cos_float, detail::cos_exact, detail::cos_exact>;
using Tan = ReducedTrig<tan_float, detail::tan_exact, detail::tan_exact>;

}  // namespace kiln::portable
