// Rare inputs: an elementwise functor whose vectorisable formula is inexact for a few inputs
// (tan's huge arguments, floor division's huge quotients) declares them, and the unary and binary
// loops send the blocks holding one to its exact, scalar formula.
//
// The functor defines `static constexpr bool kHasRareInputs = true`, `rare(x...)` (true for an
// input its operator() gets wrong) and `exact(x...)` (right for every input). A loop scans each
// block of kRareScanBlock elements first: a block without rare inputs runs the vector loop, a
// block with one runs element by element. The scan reads a block before the block is written, so
// an input may alias the output. Instead of `exact`, a functor may define `wider()`: the functor
// a block holding a rare input runs, which may have rare inputs of its own (a second tier; the
// unary loops only).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace kiln::portable {

// Whether functor Op has rare inputs (see above).
template <typename Op, typename = void>
struct HasRareInputs : std::false_type {};
template <typename Op>
struct HasRareInputs<Op, std::void_t<decltype(Op::kHasRareInputs)>>
    : std::bool_constant<Op::kHasRareInputs> {};

// Whether functor Op's `exact` is branch-free (it declares `static constexpr bool
// kExactVectorises = true`): a block holding a rare input then runs `exact` on every element, as
// a vector loop, instead of choosing element by element.
template <typename Op, typename = void>
struct ExactVectorises : std::false_type {};
template <typename Op>
struct ExactVectorises<Op, std::void_t<decltype(Op::kExactVectorises)>>
    : std::bool_constant<Op::kExactVectorises> {};

// Whether functor Op hands blocks with a rare input to a wider functor (`wider()`, see above).
template <typename Op, typename = void>
struct HasWider : std::false_type {};
template <typename Op>
struct HasWider<Op, std::void_t<decltype(std::declval<const Op&>().wider())>> : std::true_type {};

// Elements per block that a loop scans for rare inputs before mapping it.
constexpr int64_t kRareScanBlock = 256;

}  // namespace kiln::portable
