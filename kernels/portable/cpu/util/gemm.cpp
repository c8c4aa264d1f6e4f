// Blocked GEMM: packs blocks of A and B into the compute type, runs a register-tiled
// micro-kernel the compiler vectorises, and accumulates each output block before one store.
#include "kernels/portable/cpu/util/gemm.h"

#include "kernels/portable/cpu/util/convert.h"
#include "kernels/portable/cpu/util/dtype_util.h"
#include "kernels/portable/cpu/util/math.h"

namespace kiln::portable {
namespace {

// Register tile (kMr x kNr) and cache blocks (kMc x kKc of A, kKc x kNc of B, kMc x kNc of
// accumulators) per compute type, tuned on x86-64 baseline SSE2 for 256^3. The blocks live on
// the stack, so they stay near 64 KB: larger blocks repack less but cost embedded targets.
template <typename C>
struct GemmShape {  // double and int64_t: 66 KB of blocks
  static constexpr int kMr = 4;
  static constexpr int kNr = 8;
  static constexpr int64_t kKc = 48;
  static constexpr int64_t kMc = 48;
  static constexpr int64_t kNc = 64;
};
template <>
struct GemmShape<float> {  // 64 KB of blocks
  static constexpr int kMr = 4;
  static constexpr int kNr = 16;
  static constexpr int64_t kKc = 64;
  static constexpr int64_t kMc = 64;
  static constexpr int64_t kNc = 96;
};

constexpr int64_t round_up(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Packs rows [i0, i0 + mc) x cols [p0, p0 + kc) of `a` into kMr-row panels, each stored
// column by column (panel[p * kMr + i]); rows past mc are zero.
template <typename C>
void pack_a(const GemmInput& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc, C* packed, C* row) {
  constexpr int kMr = GemmShape<C>::kMr;
  const char* base = static_cast<const char*>(a.data);
  const size_t size = element_size(a.dtype);
  for (int64_t i = 0; i < round_up(mc, kMr); ++i) {
    C* panel = packed + (i / kMr) * kMr * kc + i % kMr;
    if (i < mc) {
      load_row<C>(base + ((i0 + i) * a.row_stride + p0 * a.col_stride) * size, a.dtype,
                  a.col_stride, kc, row);
      for (int64_t p = 0; p < kc; ++p) panel[p * kMr] = row[p];
    } else {
      for (int64_t p = 0; p < kc; ++p) panel[p * kMr] = C(0);
    }
  }
}

// Packs rows [p0, p0 + kc) x cols [j0, j0 + nc) of `b` into kNr-column panels, each stored row
// by row (panel[p * kNr + j]); columns past nc are zero.
template <typename C>
void pack_b(const GemmInput& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, C* packed, C* row) {
  constexpr int kNr = GemmShape<C>::kNr;
  const char* base = static_cast<const char*>(b.data);
  const size_t size = element_size(b.dtype);
  const int64_t padded = round_up(nc, kNr);
  for (int64_t p = 0; p < kc; ++p) {
    load_row<C>(base + ((p0 + p) * b.row_stride + j0 * b.col_stride) * size, b.dtype, b.col_stride,
                nc, row);
    for (int64_t j = nc; j < padded; ++j) row[j] = C(0);
    for (int64_t j = 0; j < padded; ++j) packed[(j / kNr) * kNr * kc + p * kNr + j % kNr] = row[j];
  }
}

// acc[i][j] += sum_p a[p][i] * b[p][j] for one kMr x kNr tile.
template <typename C>
void micro_kernel(int64_t kc, const C* a, const C* b, C* acc, int64_t acc_stride) {
  constexpr int kMr = GemmShape<C>::kMr;
  constexpr int kNr = GemmShape<C>::kNr;
  C tile[kMr][kNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
#pragma GCC unroll 8
    for (int i = 0; i < kMr; ++i) {
      const C ai = a[p * kMr + i];
#pragma GCC unroll 8
      for (int j = 0; j < kNr; ++j) {
        tile[i][j] = wrapping_add(tile[i][j], wrapping_mul(ai, b[p * kNr + j]));
      }
    }
  }
  for (int i = 0; i < kMr; ++i) {
    for (int j = 0; j < kNr; ++j) {
      acc[i * acc_stride + j] = wrapping_add(acc[i * acc_stride + j], tile[i][j]);
    }
  }
}

template <typename C>
void gemm_blocked(int64_t m, int64_t n, int64_t k, const GemmInput& a, const GemmInput& b,
                  const GemmOutput& out) {
  using Shape = GemmShape<C>;
  constexpr int64_t kMc = Shape::kMc;
  constexpr int64_t kNc = Shape::kNc;
  constexpr int64_t kKc = Shape::kKc;
  static_assert(kMc % Shape::kMr == 0 && kNc % Shape::kNr == 0, "blocks hold whole tiles");
  alignas(64) C a_packed[kMc * kKc];
  alignas(64) C b_packed[kKc * kNc];
  alignas(64) C acc[kMc * kNc];
  C row[kKc > kNc ? kKc : kNc];
  char* out_base = static_cast<char*>(out.data);
  const size_t out_size = element_size(out.dtype);
  for (int64_t i0 = 0; i0 < m; i0 += kMc) {
    const int64_t mc = m - i0 < kMc ? m - i0 : kMc;
    for (int64_t j0 = 0; j0 < n; j0 += kNc) {
      const int64_t nc = n - j0 < kNc ? n - j0 : kNc;
      for (int64_t i = 0; i < kMc * kNc; ++i) acc[i] = C(0);
      for (int64_t p0 = 0; p0 < k; p0 += kKc) {
        const int64_t kc = k - p0 < kKc ? k - p0 : kKc;
        pack_a(a, i0, mc, p0, kc, a_packed, row);
        pack_b(b, p0, kc, j0, nc, b_packed, row);
        for (int64_t jr = 0; jr < nc; jr += Shape::kNr) {
          for (int64_t ir = 0; ir < mc; ir += Shape::kMr) {
            micro_kernel(kc, a_packed + ir * kc, b_packed + jr * kc, acc + ir * kNc + jr, kNc);
          }
        }
      }
      for (int64_t i = 0; i < mc; ++i) {
        store_row<C>(acc + i * kNc, nc, out.dtype,
                     out_base + ((i0 + i) * out.row_stride + j0) * out_size);
      }
    }
  }
}

}  // namespace

void gemm(int64_t m, int64_t n, int64_t k, const GemmInput& a, const GemmInput& b,
          const GemmOutput& out) {
  if (m == 0 || n == 0) return;
  dispatch_compute_type(out.dtype, [&](auto tag) {
    using C = typename decltype(tag)::type;
    gemm_blocked<C>(m, n, k, a, b, out);
  });
}

}  // namespace kiln::portable
