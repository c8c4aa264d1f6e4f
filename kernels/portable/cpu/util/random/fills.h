// Random fills shared by rand, randn and native_dropout: draws from the context's generator.
//
// Each fill reserves the blocks it needs from ctx.random_generator() and maps element i to a
// fixed part of a fixed block, so results depend only on the seed and the generator's offset,
// never on how the loop is split. The sequences are Kiln's own (not torch's numbers).
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// The `size` argument of rand and randn names no negative dim; fails `ctx` otherwise.
bool check_random_sizes(KernelRuntimeContext& ctx, IntArrayRef size);

// Fills `out` (dense, any dim order; Half, BFloat16, Float or Double) with values uniform on
// [0, 1), at the dtype's precision: k / 2^d for d the dtype's significand bits, so 1 is never
// reached.
void fill_uniform(KernelRuntimeContext& ctx, Tensor& out);

// Fills `out` (dense, any dim order; a floating dtype) with standard normal values (Box-Muller).
void fill_normal(KernelRuntimeContext& ctx, Tensor& out);

// keep[i] = true with probability `keep_probability` (in [0, 1]: 0 keeps none, 1 keeps all),
// for i < n.
void fill_bernoulli(KernelRuntimeContext& ctx, double keep_probability, bool* keep, int64_t n);

}  // namespace kiln::portable
