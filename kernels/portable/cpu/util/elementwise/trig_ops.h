// The elementwise functors of sin, cos and tan, in two tiers of rare inputs (vec/rare_inputs.h).
// Float runs the vectorisable functions of vec/trig.h that reduce their argument in float, exact
// below kTrigFloatReduceLimit; a block holding a larger argument runs the ones that reduce in
// double, exact below kTrigReduceLimit; and a block holding an argument at or past that
// (infinities included) takes the C library's function, which reduces any argument exactly.
// Double takes the C library's.
#pragma once

#include <cmath>

#include "kernels/portable/cpu/util/vec/trig.h"

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

// The first tier: float-reduced below kTrigFloatReduceLimit, `Wider` (a ReducedTrig) beyond.
template <float (*kSmall)(float), typename Wider>
struct SmallTrig {
  static constexpr bool kHasRareInputs = true;
  float operator()(float x) const { return kSmall(x); }
  double operator()(double x) const { return Wider{}(x); }
  bool rare(float x) const { return std::fabs(x) >= kTrigFloatReduceLimit; }
  bool rare(double) const { return false; }
  Wider wider() const { return {}; }
};

using Sin = SmallTrig<sin_small, ReducedTrig<sin_float, detail::sin_exact, detail::sin_exact>>;
using Cos = SmallTrig<cos_small, ReducedTrig<cos_float, detail::cos_exact, detail::cos_exact>>;
using Tan = SmallTrig<tan_small, ReducedTrig<tan_float, detail::tan_exact, detail::tan_exact>>;

}  // namespace kiln::portable
