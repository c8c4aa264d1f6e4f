// The dispatch point of sum, prod and mean's Half runs and columns (util/reduce/accumulate.cpp):
// read in place, converted inside the loop, where the CPU converts Half in hardware
// (isa/x86/half_totals.h); elsewhere the caller widens them into a buffer first.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/isa/level.h"
#include "kernels/portable/cpu/isa/x86/half_totals.h"
#include "runtime/core/half.h"

namespace kiln::portable::isa {

// Whether this build reads Half runs and columns in place on some CPUs, and this CPU is one.
constexpr bool kHalfInPlace = kX86;
inline bool half_in_place() { return x86_v3(); }

// run_total<float, kProd> (util/reduce/run_total.h) of n Half values, with its bits. Only where
// half_in_place().
template <bool kProd>
double half_run_total(const Half* x, int64_t n);

// acc[i] = acc[i] (+ or *) x[i] for `rows` rows of Half values `stride` apart, i < n, the rows
// combined in four_rows' groups (util/reduce/plan.h; `identity` fills the last one) as
// accumulate.cpp's column_accumulate combines them. Only where half_in_place().
template <bool kProd>
void half_column_accumulate(float* acc, const Half* x, int64_t n, int64_t rows, int64_t stride,
                            const Half* identity);

#if defined(KILN_ISA_X86)
template <bool kProd>
inline double half_run_total(const Half* x, int64_t n) {
  return x86_v4() ? x86::half_run_total_v4<kProd>(x, n) : x86::half_run_total_v3<kProd>(x, n);
}

template <bool kProd>
inline void half_column_accumulate(float* acc, const Half* x, int64_t n, int64_t rows,
                                   int64_t stride, const Half* identity) {
  x86::half_column_accumulate_v3<kProd>(acc, x, n, rows, stride, identity);
}
#endif

}  // namespace kiln::portable::isa
