// Which elementwise functors take the KILN_MATH_LOOP clones (util/common/target.h): those whose
// double (and, for binary ops, float) formulas are vectorisable transcendental math, bound by
// arithmetic rather than memory, declare `static constexpr bool kVectorMath = true`.
#pragma once

#include <type_traits>

namespace kiln::portable {

template <typename Op, typename = void>
struct VectorMath : std::false_type {};
template <typename Op>
struct VectorMath<Op, std::void_t<decltype(Op::kVectorMath)>>
    : std::bool_constant<Op::kVectorMath> {};

}  // namespace kiln::portable
