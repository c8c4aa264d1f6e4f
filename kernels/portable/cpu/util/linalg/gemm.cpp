// Blocked GEMM: packs blocks of B (and converts blocks of A) into the compute type, runs a
// register-tiled micro-kernel written with vector extensions, and applies the epilogue once per
// output element.
#include "kernels/portable/cpu/util/linalg/gemm.h"

#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/isa/gemm_tiles.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "kernels/portable/cpu/util/reduce/row_loops.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/platform/log.h"

namespace kiln::portable {
namespace {

// The element the micro-kernel computes on: the compute type, with int64_t as uint64_t so the
// vector arithmetic wraps.
template <typename C>
using Elem = std::conditional_t<std::is_integral_v<C>, uint64_t, C>;

// Cache blocks, the same for every tile shape (so the code around the tiles is compiled once per
// compute type): an A block of kMc x kKc and a B block of kKc x kNc stay in L2 across the tiles
// that reuse them; a row-major A of the compute type is read in place instead.
template <typename C>
struct Blocks {
  static constexpr int64_t kKc = 128;
  static constexpr int64_t kMc = 48;
  static constexpr int64_t kNc = 512 / sizeof(C);  // 4 panels
  static constexpr int kNr = 128 / sizeof(C);      // a panel's width, every tile's
};

// Register tile kMr x kNr for vectors of kTileBytes. Every tile is 128 bytes wide, so B is packed
// into panels of one width whichever tile runs; a micro-kernel pass covers two vectors of columns
// for all kMr rows. With 32-byte vectors (AVX2, or two 16-byte ones) 6 rows make 12 accumulators,
// which fit 16 vector registers with room for the B row and one broadcast, and two passes cover
// the panel; AVX-512's 32 registers hold 12 rows of two 64-byte vectors, the panel in one pass.
template <typename C, int kTileBytes>
struct Shape {
  static constexpr int kMr = kTileBytes == 64 ? 12 : 6;
  static constexpr int kNr = Blocks<C>::kNr;
};

constexpr int64_t round_up(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Row `row`, columns [col0, col0 + n) of `x` as compute values; a C-typed row with unit stride is
// returned in place, anything else is converted into `buffer`.
template <typename C>
const C* read_row(const GemmInput& x, int64_t row, int64_t col0, int64_t n, C* buffer) {
  if (x.loader != nullptr) {
    x.loader(x.user, row, col0, n, buffer);
    return buffer;
  }
  const int64_t offset = row * x.row_stride + col0 * x.col_stride;
  if (x.dtype == CppToScalarType<C>::value && x.col_stride == 1) {
    return static_cast<const C*>(x.data) + offset;
  }
  load_row<C>(static_cast<const char*>(x.data) + offset * element_size(x.dtype), x.dtype,
              x.col_stride, n, buffer);
  return buffer;
}

// Rows [i0, i0 + m) x cols [p0, p0 + kc) of `x` as a row-major block (row stride kc) of the
// compute type, which the micro-kernel reads in place like a row-major A: converting rows is
// contiguous (the 16-bit rows' vector conversions), where packing panels scatters element by
// element.
template <typename C>
void load_block(const GemmInput& x, int64_t i0, int64_t m, int64_t p0, int64_t kc, C* block) {
  for (int64_t i = 0; i < m; ++i) {
    C* dst = block + i * kc;
    const C* row = read_row<C>(x, i0 + i, p0, kc, dst);
    if (row != dst) std::memcpy(dst, row, static_cast<size_t>(kc) * sizeof(C));
  }
}

// Asks for rows [p0, p0 + kKc) of the `width` columns from j of a transposed `b` to be brought
// into cache (L2) ahead of their packing. The packing reads each column kKc elements at a time, a
// run too short for the hardware prefetchers, so it otherwise waits on every line of the weight.
void prefetch_next_block(const GemmInput& b, int64_t k, int64_t p0, int64_t j, int64_t width,
                         int64_t block) {
  if (p0 >= k) return;
  const int64_t size = static_cast<int64_t>(element_size(b.dtype));
  const int64_t bytes = (k - p0 < block ? k - p0 : block) * size;
  const char* base = static_cast<const char*>(b.data);
  for (int64_t jj = 0; jj < width; ++jj) {
    const char* column = base + ((j + jj) * b.col_stride + p0) * size;
    for (int64_t offset = 0; offset < bytes; offset += 64)
      __builtin_prefetch(column + offset, 0, 2);
  }
}

// Elements of C in a 16-byte vector: the square transpose_square turns.
template <typename C>
struct SquareWidth : std::integral_constant<int64_t, 16 / sizeof(C)> {};

// dst[y * ld + x] = rows[x][p + y] for a square of SquareWidth<C> rows and columns, with
// 16-byte vector shuffles (the baseline's width, as packing is not multiversioned).
template <typename C>
inline void transpose_square(const C* const* rows, int64_t p, C* dst, int64_t ld) {
  using E = Elem<C>;
  constexpr int kW = static_cast<int>(SquareWidth<C>::value);
  typedef E V __attribute__((vector_size(16)));
  V r[kW];
  for (int x = 0; x < kW; ++x) std::memcpy(&r[x], rows[x] + p, sizeof(V));
  V o[kW];
  if constexpr (kW == 4) {
    using I = std::conditional_t<sizeof(E) == 4, int32_t, int64_t>;
    typedef I M __attribute__((vector_size(16)));
    const V t0 = __builtin_shuffle(r[0], r[1], M{0, 4, 1, 5});
    const V t1 = __builtin_shuffle(r[0], r[1], M{2, 6, 3, 7});
    const V t2 = __builtin_shuffle(r[2], r[3], M{0, 4, 1, 5});
    const V t3 = __builtin_shuffle(r[2], r[3], M{2, 6, 3, 7});
    o[0] = __builtin_shuffle(t0, t2, M{0, 1, 4, 5});
    o[1] = __builtin_shuffle(t0, t2, M{2, 3, 6, 7});
    o[2] = __builtin_shuffle(t1, t3, M{0, 1, 4, 5});
    o[3] = __builtin_shuffle(t1, t3, M{2, 3, 6, 7});
  } else {
    static_assert(kW == 2, "16-byte squares of 4- or 8-byte elements");
    typedef int64_t M __attribute__((vector_size(16)));
    o[0] = __builtin_shuffle(r[0], r[1], M{0, 2});
    o[1] = __builtin_shuffle(r[0], r[1], M{1, 3});
  }
  for (int y = 0; y < kW; ++y) std::memcpy(dst + y * ld, &o[y], sizeof(V));
}

// Packs rows [p0, p0 + kc) x cols [j0, j0 + nc) of `b` into kNr-column panels, each stored row
// by row (panel[p * kNr + j]); columns past nc are zero. kc <= kKc; k is b's row count.
template <typename C, int kNr>
void pack_b(const GemmInput& b, int64_t k, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
            C* packed, C* buffer) {
  if (b.loader == nullptr && b.row_stride == 1 && b.col_stride != 1) {
    // A transposed operand (linear's weight): gather a panel's kNr columns per packed row, so
    // the stores stay contiguous and each column is read sequentially (columns of another dtype
    // are converted first, a contiguous row each).
    constexpr int64_t kKc = Blocks<C>::kKc;
    const GemmInput transposed = {b.data, b.dtype, b.col_stride, 1};
    C converted[kNr][kKc];
    for (int64_t j = 0; j < nc; j += kNr) {
      const int64_t width = nc - j < kNr ? nc - j : kNr;
      // The columns past nc read a zero column (a buffer the real ones leave unused).
      if (width < kNr) std::memset(converted[width], 0, static_cast<size_t>(kc) * sizeof(C));
      const C* columns[kNr];
      for (int64_t jj = 0; jj < kNr; ++jj) {
        columns[jj] = jj < width ? read_row<C>(transposed, j0 + j + jj, p0, kc, converted[jj])
                                 : converted[width];
      }
      prefetch_next_block(b, k, p0 + kc, j0 + j, width, kKc);
      C* dst = packed + j * kc;
      // A cache line of every column at a time, in 16-byte squares transposed in registers.
      constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(C));
      int64_t p = 0;
      for (; p + kLine <= kc; p += kLine) {
        for (int64_t jj = 0; jj < kNr; jj += SquareWidth<C>::value) {
          for (int64_t q = p; q < p + kLine; q += SquareWidth<C>::value) {
            transpose_square(columns + jj, q, dst + q * kNr + jj, kNr);
          }
        }
      }
      for (; p < kc; ++p) {
        for (int64_t jj = 0; jj < kNr; ++jj) dst[p * kNr + jj] = columns[jj][p];
      }
    }
    return;
  }
  const int64_t full = nc / kNr * kNr;
  const int64_t rest = nc - full;
  // The last, partial panel: zeroed whole, then each row's columns copied in.
  if (rest > 0) std::memset(packed + full * kc, 0, static_cast<size_t>(kc) * kNr * sizeof(C));
  // A row-major B read in place: each of its rows here is a short run (nc elements), and rows
  // a wide B holds a page or more apart, too many at once for the hardware prefetchers. Rows
  // kPackAhead ahead are asked for while this one is copied.
  constexpr int64_t kPackAhead = 8;
  const bool in_place = b.loader == nullptr && b.col_stride == 1;
  const int64_t size = static_cast<int64_t>(element_size(b.dtype));
  for (int64_t p = 0; p < kc; ++p) {
    if (in_place && p0 + p + kPackAhead < k) {
      const char* ahead =
          static_cast<const char*>(b.data) + ((p0 + p + kPackAhead) * b.row_stride + j0) * size;
      for (int64_t offset = 0; offset < nc * size; offset += 64) __builtin_prefetch(ahead + offset);
    }
    const C* row = read_row<C>(b, p0 + p, j0, nc, buffer);
    C* dst = packed + p * kNr;
    for (int64_t j = 0; j < full; j += kNr) {
      std::memcpy(dst + j * kc, row + j, kNr * sizeof(C));
    }
    for (int64_t j = 0; j < rest; ++j) dst[full * kc + j] = row[full + j];
  }
}

// How a block's tiles are stored: added to what dst holds (`accumulate`: a k block after the
// first), and, on a floating product's last k block, finished as each tile is stored: a bias
// added per row or per column of the block, then a clamp (a fused activation), while the tile is
// in L1, rather than by a second pass over the output. (Finishing the accumulators in registers
// instead slowed the products' loop: its registers are all taken.) The additions and the clamp
// are Finisher::apply's, in its order, so the bits are the same.
template <typename C>
struct TileStore {
  bool accumulate = false;
  const C* row_add = nullptr;  // row_add[i] added to the block's row i
  const C* col_add = nullptr;  // col_add[j] added to the block's column j
  bool clamp = false;
  C low = C(0), high = C(0);

  bool finishes() const { return row_add != nullptr || col_add != nullptr || clamp; }
};

// Finishes a tile just stored (rows x width at dst, row stride ld, still in L1) as `store`
// says; row_add and col_add are the tile's own. Each step is a loop of its own, which
// vectorises.
template <typename C>
KILN_ALWAYS_INLINE void finish_tile(const TileStore<C>& store, C* dst, int64_t ld, int rows,
                                    int width, const C* row_add, const C* col_add) {
  for (int i = 0; i < rows; ++i) {
    C* row = dst + i * ld;
    if (row_add != nullptr) {
      const C add = row_add[i];
      for (int j = 0; j < width; ++j) row[j] += add;
    }
    if (col_add != nullptr) {
      for (int j = 0; j < width; ++j) row[j] += col_add[j];
    }
    if (store.clamp) {
      for (int j = 0; j < width; ++j) row[j] = row[j] < store.low ? store.low : row[j];
      for (int j = 0; j < width; ++j) row[j] = row[j] > store.high ? store.high : row[j];
    }
  }
}

// dst (mr x nr, row stride ld) = (accumulate ? dst : 0) + sum_p a[i][p] * b[p][j] over one
// kMr x kNr tile (of Shape S), then finished as `store` says (row_add and col_add are the tile's
// own): rows of a row-major A, a B panel of kNr columns whose rows are ldb apart (kNr when
// packed), with vectors of kBytes: each pass covers two vectors of columns for all kRows rows (at
// most S::kMr), so the accumulators fit the register file of that width. A panel read in place
// must be whole (nr == kNr): a pass reads all its vectors' columns.
template <typename C, typename S, int kBytes, int kRows = S::kMr>
__attribute__((always_inline)) inline void micro_kernel(int64_t kc, const C* a_panel, int64_t lda,
                                                        const C* b_panel, int64_t ldb, C* dst_c,
                                                        int64_t ld, int mr, int nr,
                                                        const TileStore<C>& store, const C* row_add,
                                                        const C* col_add) {
  using E = Elem<C>;
  typedef E V __attribute__((vector_size(kBytes)));
  constexpr int kL = kBytes / static_cast<int>(sizeof(C));
  constexpr int kMr = kRows;
  constexpr int kNr = S::kNr;
  const bool accumulate = store.accumulate;
  const E* a = reinterpret_cast<const E*>(a_panel);
  const E* rows[kMr];  // row i at a + i * lda (short tiles repeat the last row)
  for (int i = 0; i < kMr; ++i) rows[i] = a + (i < mr ? i : mr - 1) * lda;
  E* dst = reinterpret_cast<E*>(dst_c);
  for (int pass = 0; pass < kNr / (2 * kL); ++pass) {
    const int j0 = pass * 2 * kL;
    if (j0 >= nr) break;
    const E* b = reinterpret_cast<const E*>(b_panel) + j0;
    V acc[kMr][2] = {};
    for (int64_t p = 0; p < kc; ++p) {
      V b0, b1;
      std::memcpy(&b0, b + p * ldb, sizeof(V));
      std::memcpy(&b1, b + p * ldb + kL, sizeof(V));
#pragma GCC unroll 12
      for (int i = 0; i < kMr; ++i) {
        const E value = rows[i][p];
        const V ai = value - V{};  // a broadcast (x - 0 is exact, unlike 0 + x)
        acc[i][0] += ai * b0;
        acc[i][1] += ai * b1;
      }
    }
    const int width = nr - j0 < 2 * kL ? nr - j0 : 2 * kL;
    if (mr == kMr && width == 2 * kL) {
#pragma GCC unroll 12
      for (int i = 0; i < kMr; ++i) {
        E* row = dst + i * ld + j0;
        if (accumulate) {
          V old0, old1;
          std::memcpy(&old0, row, sizeof(V));
          std::memcpy(&old1, row + kL, sizeof(V));
          acc[i][0] += old0;
          acc[i][1] += old1;
        }
        std::memcpy(row, &acc[i][0], sizeof(V));
        std::memcpy(row + kL, &acc[i][1], sizeof(V));
      }
    } else {
      E tile[kMr][2 * kL];
      std::memcpy(tile, acc, sizeof(tile));
      for (int i = 0; i < mr; ++i) {
        E* row = dst + i * ld + j0;
        for (int j = 0; j < width; ++j) row[j] = accumulate ? row[j] + tile[i][j] : tile[i][j];
      }
    }
    if (store.finishes()) {
      finish_tile(store, dst_c + j0, ld, mr, width, row_add,
                  col_add == nullptr ? nullptr : col_add + j0);
    }
  }
}

// A block of B (kc x nc) as the tiles read it: kNr-column panels, panel q at data + q *
// panel_stride, its rows row_stride apart. Packed, a panel is kc x kNr and contiguous; read in
// place, the panels are B's own columns.
template <typename C>
struct Panels {
  const C* data;
  int64_t row_stride;
  int64_t panel_stride;
};

// All tiles of one row-major A block (mc x kc, row stride lda) times one B block (kc x nc) into
// dst, stored as `store` says.
template <typename C, typename S, int kBytes>
__attribute__((always_inline)) inline void block_product(int64_t mc, int64_t nc, int64_t kc,
                                                         const C* a, int64_t lda,
                                                         const Panels<C>& b, C* dst, int64_t ld,
                                                         const TileStore<C>& store) {
  constexpr int kMr = S::kMr;
  constexpr int kNr = S::kNr;
  for (int64_t jr = 0; jr < nc; jr += kNr) {
    const int nr = static_cast<int>(nc - jr < kNr ? nc - jr : kNr);
    for (int64_t ir = 0; ir < mc; ir += kMr) {
      const int mr = static_cast<int>(mc - ir < kMr ? mc - ir : kMr);
      const C* a_panel = a + ir * lda;
      const C* b_panel = b.data + jr / kNr * b.panel_stride;
      C* tile = dst + ir * ld + jr;
      const C* row_add = store.row_add != nullptr ? store.row_add + ir : nullptr;
      const C* col_add = store.col_add != nullptr ? store.col_add + jr : nullptr;
      // A short last tile (64 rows are 5 tiles of 12 and 4 rows) runs with a third of the rows
      // rather than repeating its last row up to a full tile.
      if (mr <= kMr / 3) {
        micro_kernel<C, S, kBytes, kMr / 3>(kc, a_panel, lda, b_panel, b.row_stride, tile, ld, mr,
                                            nr, store, row_add, col_add);
      } else {
        micro_kernel<C, S, kBytes>(kc, a_panel, lda, b_panel, b.row_stride, tile, ld, mr, nr, store,
                                   row_add, col_add);
      }
    }
  }
}

// One block of tiles for vectors of kBytes, as the ISA room compiles it (isa/gemm_tiles.h): the
// register tile follows the vector width the code is compiled for.
template <typename C>
struct TileBlock {
  template <int kBytes>
  KILN_ALWAYS_INLINE static void run(int64_t mc, int64_t nc, int64_t kc, const C* a, int64_t lda,
                                     const Panels<C>& b, C* dst, int64_t ld,
                                     const TileStore<C>& store) {
    block_product<C, Shape<C, kBytes == 64 ? 64 : 32>, kBytes>(mc, nc, kc, a, lda, b, dst, ld,
                                                               store);
  }
};

// One block of tiles: (mc, nc, kc, A, lda, B's panels, dst, ld, store); A is row-major with
// row stride lda (read in place, or a block load_block converted).
template <typename C>
using BlockFn = void (*)(int64_t, int64_t, int64_t, const C*, int64_t, const Panels<C>&, C*,
                         int64_t, const TileStore<C>&);

// A block function with the rows of its register tile.
template <typename C>
struct BlockKernel {
  BlockFn<C> run;
  int64_t tile_rows;
};

// int64's block where the baseline's vectors have no 64-bit multiply (x86-64's SSE2, whose
// emulation by three 32-bit multiplies per product is far slower): scalar products, four output
// columns at a time summed over k in registers. Integer panels are always packed, zero-padded to
// kNr columns (a multiple of 4), so each group of four reads within its panel.
template <typename C>
void block_scalar(int64_t mc, int64_t nc, int64_t kc, const C* a, int64_t lda, const Panels<C>& b,
                  C* dst, int64_t ld, const TileStore<C>& store) {
  const bool accumulate = store.accumulate;  // integer products are finished by Finisher
  using E = Elem<C>;
  constexpr int64_t kNr = Blocks<C>::kNr;
  for (int64_t i = 0; i < mc; ++i) {
    const E* x = reinterpret_cast<const E*>(a + i * lda);
    E* row = reinterpret_cast<E*>(dst + i * ld);
    for (int64_t j = 0; j < nc; j += 4) {
      const E* panel = reinterpret_cast<const E*>(b.data + j / kNr * b.panel_stride) + j % kNr;
      E sums[4] = {};
      for (int64_t p = 0; p < kc; ++p) {
        KILN_UNROLL
        for (int q = 0; q < 4; ++q) sums[q] += x[p] * panel[p * b.row_stride + q];
      }
      const int64_t columns = nc - j < 4 ? nc - j : 4;
      for (int64_t q = 0; q < columns; ++q) row[j + q] = (accumulate ? row[j + q] : 0) + sums[q];
    }
  }
}

template <typename C>
void block_base(int64_t mc, int64_t nc, int64_t kc, const C* a, int64_t lda, const Panels<C>& b,
                C* dst, int64_t ld, const TileStore<C>& store) {
  if constexpr (std::is_integral_v<C> && isa::kBaselineLacksInt64Multiply) {
    return block_scalar(mc, nc, kc, a, lda, b, dst, ld, store);
  }
  TileBlock<C>::template run<kBaselineVectorBytes>(mc, nc, kc, a, lda, b, dst, ld, store);
}

// Whether the AVX-512 tiles beat the AVX2 ones (docs/performance.md). Floating products: only
// those large enough to amortise their cost (on the test models' small layers, a 4x32 by 32x16
// linear and an 8-channel 3x3 convolution on 8x8, the AVX-512 path was slower), from 7 rows, past
// one row of AVX2 tiles: one 12-row tile beats two rows of 6-row ones. int64 products always:
// AVX2 has no 64-bit multiply, and its tile's three 32-bit ones per product lose to AVX-512's
// vpmullq at every size.
template <typename C>
bool wide_tiles_pay(int64_t m, int64_t n, int64_t k) {
  return std::is_integral_v<C> ||
         (m > Shape<C, 32>::kMr && n >= 32 && m * n * k >= (int64_t{1} << 18));
}

// The epilogue in compute type C: values = alpha * values + beta * c over one row segment.
template <typename C>
struct Finisher {
  C alpha;
  C beta;
  bool scale;  // alpha != 1
  bool add_c;  // beta != 0 and c given
  bool clamp;  // a fused activation (floating C only)
  C low, high;
  const GemmInput* c;

  Finisher(const GemmEpilogue& e, ScalarType out_type) {
    // Floating alpha/beta stay in float for Half and BFloat16 outs, as ATen's opmath does.
    const ScalarType common = std::is_integral_v<C> ? ScalarType::Long : out_type;
    const ScalarType wide = common == ScalarType::Double ? common
                            : std::is_integral_v<C>      ? common
                                                         : ScalarType::Float;
    alpha = scalar_to<C>(e.alpha, wide);
    beta = scalar_to<C>(e.beta, wide);
    scale = alpha != C(1);
    add_c = e.c.data != nullptr && beta != C(0);
    clamp = std::is_floating_point_v<C> && e.clamp != nullptr;
    low = clamp ? static_cast<C>(e.clamp->min) : C(0);
    high = clamp ? static_cast<C>(e.clamp->max) : C(0);
    c = &e.c;
  }

  bool any() const { return scale || add_c || clamp; }

  // Whether the tiles can finish the results as they store them (TileStore), and with what: a
  // floating product without alpha whose c is a bias of the compute type, added as is and
  // contiguous per row (a convolution's) or per column (a linear layer's), and any clamp. Else
  // apply() finishes them in a second pass.
  bool finishes_in_tiles(TileStore<C>* store) const {
    if (!std::is_floating_point_v<C> || scale) return false;
    if (add_c) {
      if (beta != C(1) || c->loader != nullptr || c->dtype != CppToScalarType<C>::value) {
        return false;
      }
      const C* bias = static_cast<const C*>(c->data);
      if (c->col_stride == 0 && c->row_stride == 1) {
        store->row_add = bias;
      } else if (c->row_stride == 0 && c->col_stride == 1) {
        store->col_add = bias;
      } else {
        return false;
      }
    }
    store->clamp = clamp;
    store->low = low;
    store->high = high;
    return true;
  }

  // Once per output row: out of line, as copies in each of gemm's paths cost bytes for nothing.
  KILN_NOINLINE void apply(C* values, int64_t row, int64_t col0, int64_t n, C* buffer) const {
    if (scale) {
      for (int64_t j = 0; j < n; ++j) values[j] = wrapping_mul(alpha, values[j]);
    }
    if (add_c && c->loader == nullptr && c->col_stride == 0) {
      // One value per row (a convolution's bias): read once, not spread over a row first.
      C value;
      load_row<C>(static_cast<const char*>(c->data) + row * c->row_stride * element_size(c->dtype),
                  c->dtype, 0, 1, &value);
      const C add = wrapping_mul(beta, value);
      for (int64_t j = 0; j < n; ++j) values[j] = wrapping_add(values[j], add);
    } else if (add_c) {
      const C* c_row = read_row<C>(*c, row, col0, n, buffer);
      for (int64_t j = 0; j < n; ++j) {
        values[j] = wrapping_add(values[j], wrapping_mul(beta, c_row[j]));
      }
    }
    if (clamp) {
      // Two one-sided passes, each a vector max or min (NaN stays NaN): a nested select
      // compiles to branches, which mispredict on activations' mixed signs.
      for (int64_t j = 0; j < n; ++j) values[j] = values[j] < low ? low : values[j];
      for (int64_t j = 0; j < n; ++j) values[j] = values[j] > high ? high : values[j];
    }
  }
};

// Output rows [i_begin, i_end) and columns [j_begin, j_end) of the product.
struct GemmPart {
  int64_t i_begin, i_end, j_begin, j_end;
};

// One part of the product, running each block through `run_block`. A part starts on a whole
// panel of columns (a multiple of kNr) or cache block of rows (kMc), and every output element
// sums over k in the same kKc blocks, in the same order, whatever the partition.
template <typename C>
void gemm_typed(const GemmPart& part, int64_t k, const GemmInput& a, const GemmInput& b,
                const GemmOutput& out, const GemmEpilogue& epilogue, const BlockKernel<C>& kernel) {
  using Cache = Blocks<C>;
  const BlockFn<C> run_block = kernel.run;
  alignas(64) C a_packed[Cache::kMc * Cache::kKc];
  alignas(64) C b_packed[Cache::kKc * Cache::kNc];
  C buffer[Cache::kKc > Cache::kNc ? Cache::kKc : Cache::kNc];
  const Finisher<C> finish(epilogue, out.dtype);
  if (finish.alpha == C(0)) k = 0;  // ATen skips the product (and its NaNs) when alpha is 0
  char* out_base = static_cast<char*>(out.data);
  const size_t out_size = element_size(out.dtype);
  // A row-major A of the compute type is read in place instead of packed.
  const bool a_direct =
      a.loader == nullptr && a.dtype == CppToScalarType<C>::value && a.col_stride == 1;
  // Double computes for Double alone, so its outs never take the narrower outs' path below.
  if (std::is_same_v<C, double> || out.dtype == CppToScalarType<C>::value) {
    // Accumulate straight into out, block row by block row, finishing after the last k block.
    C* dst = static_cast<C*>(out.data);
    // A floating part of one row of tiles reads B's whole panels in place: packed, each panel
    // would serve that one row of tiles, so packing would only add a copy of B. The last,
    // partial panel is packed still, as a tile reads whole vectors past its last column. int64
    // keeps packing: its multiply-bound tile read B's rows in place slowly once they were far
    // apart (docs/performance.md).
    const bool b_in_place = std::is_floating_point_v<C> && b.loader == nullptr &&
                            b.dtype == CppToScalarType<C>::value && b.col_stride == 1 &&
                            part.i_end - part.i_begin <= kernel.tile_rows;
    TileStore<C> finishing;  // the last k block's store, when the tiles finish the results
    const bool tiles_finish = k > 0 && finish.finishes_in_tiles(&finishing);
    for (int64_t j0 = part.j_begin; j0 < part.j_end; j0 += Cache::kNc) {
      const int64_t nc = part.j_end - j0 < Cache::kNc ? part.j_end - j0 : Cache::kNc;
      if (k == 0) {
        for (int64_t i = part.i_begin; i < part.i_end; ++i) {
          for (int64_t j = 0; j < nc; ++j) dst[i * out.row_stride + j0 + j] = C(0);
        }
      }
      const int64_t whole = b_in_place ? nc / Cache::kNr * Cache::kNr : 0;
      for (int64_t p0 = 0; p0 < k; p0 += Cache::kKc) {
        const int64_t kc = k - p0 < Cache::kKc ? k - p0 : Cache::kKc;
        if (whole < nc) {
          pack_b<C, Cache::kNr>(b, k, p0, kc, j0 + whole, nc - whole, b_packed, buffer);
        }
        const C* b_rows =
            whole > 0 ? static_cast<const C*>(b.data) + p0 * b.row_stride + j0 : nullptr;
        const Panels<C> in_place = {b_rows, b.row_stride, Cache::kNr};
        const Panels<C> rest = {b_packed, Cache::kNr, Cache::kNr * kc};
        TileStore<C> store = tiles_finish && p0 + kc >= k ? finishing : TileStore<C>{};
        store.accumulate = p0 > 0;
        if (store.col_add != nullptr) store.col_add += j0;
        for (int64_t i0 = part.i_begin; i0 < part.i_end; i0 += Cache::kMc) {
          const int64_t mc = part.i_end - i0 < Cache::kMc ? part.i_end - i0 : Cache::kMc;
          const C* a_block = a_packed;
          int64_t lda = 0;
          if (a_direct) {
            a_block = static_cast<const C*>(a.data) + i0 * a.row_stride + p0;
            lda = a.row_stride;
          } else {
            load_block(a, i0, mc, p0, kc, a_packed);
            lda = kc;
          }
          C* dst_block = dst + i0 * out.row_stride + j0;
          TileStore<C> block_store = store;
          if (store.row_add != nullptr) block_store.row_add += i0;
          if (whole > 0) {
            run_block(mc, whole, kc, a_block, lda, in_place, dst_block, out.row_stride,
                      block_store);
          }
          if (whole < nc) {
            if (store.col_add != nullptr) block_store.col_add += whole;
            run_block(mc, nc - whole, kc, a_block, lda, rest, dst_block + whole, out.row_stride,
                      block_store);
          }
        }
      }
      if (finish.any() && !tiles_finish) {
        for (int64_t i = part.i_begin; i < part.i_end; ++i) {
          finish.apply(dst + i * out.row_stride + j0, i, j0, nc, buffer);
        }
      }
    }
    return;
  }
  // Narrower out dtypes: accumulate a block of mb x nb in C, then finish and round it once. B
  // blocks are packed once per mb rows and A blocks converted once per nb columns, so a part of
  // at most kNc rows takes them all in one block of fewer columns (each B block packed once);
  // taller ones take blocks of kMc x kNc. A is converted kMc rows at a time. (Each element still
  // sums over k in the same kKc blocks, whatever the blocking.)
  constexpr int64_t kAccSize = Cache::kMc * Cache::kNc;
  alignas(64) C acc[kAccSize];
  const int64_t m = part.i_end - part.i_begin;
  const bool short_product = m <= Cache::kNc;
  const int64_t mb = short_product ? m : Cache::kMc;
  int64_t nb = short_product ? kAccSize / m / Cache::kNr * Cache::kNr : Cache::kNc;
  nb = nb < Cache::kNc ? nb : Cache::kNc;  // the packed B block's width
  for (int64_t i0 = part.i_begin; i0 < part.i_end; i0 += mb) {
    const int64_t mc = part.i_end - i0 < mb ? part.i_end - i0 : mb;
    for (int64_t j0 = part.j_begin; j0 < part.j_end; j0 += nb) {
      const int64_t nc = part.j_end - j0 < nb ? part.j_end - j0 : nb;
      if (k == 0) {
        for (int64_t i = 0; i < mc * nb; ++i) acc[i] = C(0);
      }
      for (int64_t p0 = 0; p0 < k; p0 += Cache::kKc) {
        const int64_t kc = k - p0 < Cache::kKc ? k - p0 : Cache::kKc;
        pack_b<C, Cache::kNr>(b, k, p0, kc, j0, nc, b_packed, buffer);
        for (int64_t i1 = 0; i1 < mc; i1 += Cache::kMc) {
          const int64_t rows = mc - i1 < Cache::kMc ? mc - i1 : Cache::kMc;
          load_block(a, i0 + i1, rows, p0, kc, a_packed);
          const Panels<C> panels = {b_packed, Cache::kNr, Cache::kNr * kc};
          run_block(rows, nc, kc, a_packed, kc, panels, acc + i1 * nb, nb, TileStore<C>{p0 > 0});
        }
      }
      for (int64_t i = 0; i < mc; ++i) {
        C* row = acc + i * nb;
        finish.apply(row, i0 + i, j0, nc, buffer);
        store_row<C>(row, nc, out.dtype, out_base + ((i0 + i) * out.row_stride + j0) * out_size);
      }
    }
  }
}

// A few rows of A against a transposed B of their own dtype (linear's weight, whose rows are B's
// columns): every output element is the dot product of two contiguous rows, and B is read once,
// in place (Half and BFloat16 rows converted to float a pass at a time). Packing B into panels
// would cost more than the products at so few rows.
constexpr int64_t kDotRows = 8;  // even: dot_pass pairs them
// Elements of a row per pass: the four rows of B a pass reads stay in L1 across A's rows.
constexpr int64_t kDotChunk = 512;
// Output columns finished and stored together.
constexpr int64_t kDotBlock = 128;
// How far ahead of the four columns being summed B's columns are prefetched.
constexpr int64_t kDotAhead = 8;

bool dot_products_fit(int64_t m, const GemmInput& a, const GemmInput& b, const GemmOutput& out) {
  const ScalarType type = a.dtype;
  const bool float_type =
      type == ScalarType::Float || type == ScalarType::Half || type == ScalarType::BFloat16;
  return float_type && m <= kDotRows && a.loader == nullptr && b.loader == nullptr &&
         b.dtype == type && out.dtype == type && a.col_stride == 1 && b.row_stride == 1;
}

// acc[i][q] += a[i * lda + p] * cols[q][p] over p < len (a whole number of vectors) for i < m
// and q < 4, lane by lane in p's order: A's rows two at a time against the four columns (eight
// accumulators; an odd last row is paired with itself, into acc's spare row).
KILN_ALWAYS_INLINE void dot_pass_body(int64_t m, int64_t len, const float* a, int64_t lda,
                                      const float* const* cols, Vector<float> (*acc)[4]) {
  using V = Vector<float>;
  constexpr int64_t kL = sizeof(V) / sizeof(float);
  for (int64_t i = 0; i < m; i += 2) {
    const float* x0 = a + i * lda;
    const float* x1 = i + 1 < m ? x0 + lda : x0;
    V sums[2][4];
    std::memcpy(sums, acc + i, sizeof(sums));
    for (int64_t p = 0; p < len; p += kL) {
      V v0, v1;
      std::memcpy(&v0, x0 + p, sizeof(V));
      std::memcpy(&v1, x1 + p, sizeof(V));
      KILN_UNROLL
      for (int q = 0; q < 4; ++q) {
        V w;
        std::memcpy(&w, cols[q] + p, sizeof(V));
        sums[0][q] += v0 * w;
        sums[1][q] += v1 * w;
      }
    }
    std::memcpy(acc + i, sums, sizeof(sums));
  }
}

// dot_pass_body as the ISA room compiles it (isa/gemm_tiles.h's dot_loop): an x86-64-v3 version
// beside the baseline one, picked there rather than by a clone's resolver, so that
// KILN_CPU_ISA=baseline runs the baseline one in a test too.
struct DotPassLoop {
  template <int kBytes>
  KILN_ALWAYS_INLINE static void run(int64_t m, int64_t len, const float* a, int64_t lda,
                                     const float* const* cols, Vector<float> (*acc)[4]) {
    dot_pass_body(m, len, a, lda, cols, acc);
  }
};

void dot_pass(int64_t m, int64_t len, const float* a, int64_t lda, const float* const* cols,
              Vector<float> (*acc)[4]) {
  isa::dot_loop<DotPassLoop, kBaselineVectorBytes>(m, len, a, lda, cols, acc);
}

// Rows [row0, row0 + count) of `x` (row stride `ld` elements), elements [p0, p0 + len), as float
// rows: float rows in place, others converted into `buffer`, `len` apart.
const float* float_rows(const GemmInput& x, int64_t row0, int64_t count, int64_t ld, int64_t p0,
                        int64_t len, float* buffer) {
  const char* base = static_cast<const char*>(x.data);
  if (x.dtype == ScalarType::Float) return reinterpret_cast<const float*>(base) + row0 * ld + p0;
  const size_t size = element_size(x.dtype);
  for (int64_t r = 0; r < count; ++r) {
    load_row<float>(base + ((row0 + r) * ld + p0) * size, x.dtype, 1, len, buffer + r * len);
  }
  return buffer;
}

// out[i][q] for i < m, q < 4: the dot products of A's rows with the columns col[q] of B, summed
// as dot_pass sums them, kDotChunk elements per pass, then lane by lane, and the elements past
// the last whole vector last.
void dot_four_columns(int64_t m, int64_t k, const GemmInput& a, const GemmInput& b,
                      const int64_t* col, float (*out)[4]) {
  using V = Vector<float>;
  constexpr int64_t kL = sizeof(V) / sizeof(float);
  alignas(32) float x_buffer[kDotRows * kDotChunk];
  alignas(32) float w_buffer[4 * kDotChunk];
  V acc[kDotRows][4] = {};
  const int64_t vector_end = k / kL * kL;
  for (int64_t i = 0; i < m; ++i) {
    for (int q = 0; q < 4; ++q) out[i][q] = 0.0f;  // k == 0
  }
  for (int64_t p0 = 0; p0 < k; p0 += kDotChunk) {
    const int64_t len = k - p0 < kDotChunk ? k - p0 : kDotChunk;
    const int64_t lda = a.dtype == ScalarType::Float ? a.row_stride : len;
    const float* x = float_rows(a, 0, m, a.row_stride, p0, len, x_buffer);
    const float* cols[4];
    for (int q = 0; q < 4; ++q) {
      cols[q] = float_rows(b, col[q], 1, b.col_stride, p0, len, w_buffer + q * kDotChunk);
    }
    const int64_t vectors = p0 + len < vector_end ? len : vector_end - p0;
    if (vectors > 0) dot_pass(m, vectors, x, lda, cols, acc);
    if (p0 + len < k) continue;  // the lanes are summed after the last pass
    for (int64_t i = 0; i < m; ++i) {
      for (int q = 0; q < 4; ++q) {
        float sum = acc[i][q][0];
        for (int64_t l = 1; l < kL; ++l) sum += acc[i][q][l];
        for (int64_t p = vectors; p < len; ++p) sum += x[i * lda + p] * cols[q][p];
        out[i][q] = sum;
      }
    }
  }
}

// The product by dot products over ctx's threads, columns split in groups of four; every element
// is computed the same way whatever the split. Sums are finished (alpha, beta * c) and stored
// kDotBlock columns at a time.
void gemm_dot(const KernelRuntimeContext& ctx, int64_t m, int64_t n, int64_t k, const GemmInput& a,
              const GemmInput& b, const GemmOutput& out, const GemmEpilogue& epilogue) {
  const Finisher<float> finish(epilogue, out.dtype);
  if (finish.alpha == 0.0f) k = 0;  // ATen skips the product (and its NaNs) when alpha is 0
  const int64_t group_work = 4 * m * (k > 0 ? k : 1);
  const int64_t grain = group_work >= kGemmGrain ? 1 : (kGemmGrain + group_work - 1) / group_work;
  char* out_base = static_cast<char*>(out.data);
  const size_t out_size = element_size(out.dtype);
  parallel_for(ctx, 0, (n + 3) / 4, grain, [&](int64_t first, int64_t last) {
    const int64_t j_end = last * 4 < n ? last * 4 : n;
    float block[kDotRows][kDotBlock];
    float buffer[kDotBlock];
    for (int64_t j0 = first * 4; j0 < j_end; j0 += kDotBlock) {
      const int64_t width = j_end - j0 < kDotBlock ? j_end - j0 : kDotBlock;
      for (int64_t j = 0; j < width; j += 4) {
        int64_t col[4];  // past n, the last column again; its sums are dropped
        for (int q = 0; q < 4; ++q) col[q] = j0 + j + q < n ? j0 + j + q : n - 1;
        // B's columns are read once each: ask for the next four while these are summed, so that
        // memory's latency overlaps the arithmetic (a weight streamed from memory, as a decode
        // step's are, otherwise waits on every line).
        const int64_t next = j0 + j + kDotAhead;
        if (next < j_end)
          prefetch_next_block(b, k, 0, next, j_end - next < 4 ? j_end - next : 4, k);
        float sums[kDotRows][4];
        dot_four_columns(m, k, a, b, col, sums);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t q = 0; q < 4 && j + q < width; ++q) block[i][j + q] = sums[i][q];
        }
      }
      for (int64_t i = 0; i < m; ++i) {
        finish.apply(block[i], i, j0, width, buffer);
        store_row<float>(block[i], width, out.dtype,
                         out_base + (i * out.row_stride + j0) * out_size);
      }
    }
  });
}

// A few rows of float A against a row-major float B (a language model's decode step against its
// transposed weight, which constant folding made contiguous): out's columns are taken
// kGemvColumns at a time, and for each B streams through the rows of that strip, a long
// contiguous run per row with the next rows prefetched, while the tiles would walk each 128-byte
// panel down the rows one cache line per row, page after page, at a fraction of memory's speed.
// Each element sums its products in k's order, whatever the threads.
constexpr int64_t kGemvRows = 4;
constexpr int64_t kGemvColumns = 512;
// Rows of B prefetched ahead of the one being read.
constexpr int64_t kGemvAhead = 4;

bool gemv_fits(int64_t m, const GemmInput& a, const GemmInput& b, const GemmOutput& out) {
  return m <= kGemvRows && a.loader == nullptr && b.loader == nullptr &&
         a.dtype == ScalarType::Float && b.dtype == ScalarType::Float &&
         out.dtype == ScalarType::Float && b.col_stride == 1;
}

// acc[i][0, width) += sum over p < k of a[i][p] * b[p][0, width) for i < m, width a whole
// number of vectors; A's element (i, p) at a[i * a_row + p * a_col], B's rows ldb apart. Four
// rows of B at a time: each vector of sums is loaded and stored once per four rows, its four
// products still added in k's order.
template <int kBytes>
KILN_ALWAYS_INLINE void gemv_strip(int64_t m, int64_t k, int64_t width, const float* a,
                                   int64_t a_row, int64_t a_col, const float* b, int64_t ldb,
                                   float (*acc)[kGemvColumns]) {
  using V = Vector<float, kBytes>;
  constexpr int64_t kL = kBytes / sizeof(float);
  constexpr int64_t kStep = 4;  // rows of B per pass
  for (int64_t p0 = 0; p0 < k; p0 += kStep) {
    const int64_t rows = k - p0 < kStep ? k - p0 : kStep;
    for (int64_t q = 0; q < kStep && p0 + kGemvAhead + q < k; ++q) {
      const char* ahead = reinterpret_cast<const char*>(b + (p0 + kGemvAhead + q) * ldb);
      for (int64_t offset = 0; offset < width * 4; offset += 64) {
        __builtin_prefetch(ahead + offset, 0, 3);
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      float* sums = acc[i];
      V x[kStep];
      const float* b_rows[kStep];
      for (int64_t q = 0; q < kStep; ++q) {
        // (Entries past k's last row are set but never read.)
        x[q] = V{} + (q < rows ? a[i * a_row + (p0 + q) * a_col] : 0.0f);
        b_rows[q] = b + (p0 + (q < rows ? q : 0)) * ldb;
      }
      if (rows == kStep) {
        for (int64_t j = 0; j < width; j += kL) {
          V s;
          std::memcpy(&s, sums + j, sizeof(V));
          KILN_UNROLL
          for (int64_t q = 0; q < kStep; ++q) {
            V w;
            std::memcpy(&w, b_rows[q] + j, sizeof(V));
            s += x[q] * w;
          }
          std::memcpy(sums + j, &s, sizeof(V));
        }
        continue;
      }
      for (int64_t q = 0; q < rows; ++q) {
        for (int64_t j = 0; j < width; j += kL) {
          V s, w;
          std::memcpy(&s, sums + j, sizeof(V));
          std::memcpy(&w, b_rows[q] + j, sizeof(V));
          s += x[q] * w;
          std::memcpy(sums + j, &s, sizeof(V));
        }
      }
    }
  }
}

struct GemvLoop {
  template <int kBytes>
  KILN_ALWAYS_INLINE static void run(int64_t m, int64_t k, int64_t width, const float* a,
                                     int64_t a_row, int64_t a_col, const float* b, int64_t ldb,
                                     float (*acc)[kGemvColumns]) {
    gemv_strip<kBytes>(m, k, width, a, a_row, a_col, b, ldb, acc);
  }
};

void gemm_gemv(const KernelRuntimeContext& ctx, int64_t m, int64_t n, int64_t k, const GemmInput& a,
               const GemmInput& b, const GemmOutput& out, const GemmEpilogue& epilogue) {
  const Finisher<float> finish(epilogue, out.dtype);
  if (finish.alpha == 0.0f) k = 0;  // ATen skips the product (and its NaNs) when alpha is 0
  const int64_t strip_work = m * kGemvColumns * (k > 0 ? k : 1);
  const int64_t grain = strip_work >= kGemmGrain ? 1 : (kGemmGrain + strip_work - 1) / strip_work;
  const auto* a_data = static_cast<const float*>(a.data);
  const auto* b_data = static_cast<const float*>(b.data);
  auto* out_data = static_cast<float*>(out.data);
  parallel_for(
      ctx, 0, (n + kGemvColumns - 1) / kGemvColumns, grain, [&](int64_t first, int64_t last) {
        alignas(64) float acc[kGemvRows][kGemvColumns];
        float buffer[kGemvColumns];
        constexpr int64_t kVector = 64 / sizeof(float);  // whole vectors at any width
        for (int64_t strip = first; strip < last; ++strip) {
          const int64_t j0 = strip * kGemvColumns;
          const int64_t width = n - j0 < kGemvColumns ? n - j0 : kGemvColumns;
          const int64_t vectors = width / kVector * kVector;
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < width; ++j) acc[i][j] = 0.0f;
          }
          if (vectors > 0) {
            float (*sums)[kGemvColumns] = acc;
            isa::dot_loop<GemvLoop, kBaselineVectorBytes>(
                m, k, vectors, a_data, a.row_stride, a.col_stride, b_data + j0, b.row_stride, sums);
          }
          // The columns past the last whole vector, summed in the same order.
          for (int64_t p = 0; p < k && vectors < width; ++p) {
            const float* row = b_data + p * b.row_stride + j0;
            for (int64_t i = 0; i < m; ++i) {
              const float x = a_data[i * a.row_stride + p * a.col_stride];
              for (int64_t j = vectors; j < width; ++j) acc[i][j] += x * row[j];
            }
          }
          for (int64_t i = 0; i < m; ++i) {
            finish.apply(acc[i], i, j0, width, buffer);
            std::memcpy(out_data + i * out.row_stride + j0, acc[i],
                        static_cast<size_t>(width) * sizeof(float));
          }
        }
      });
}

// The product split over ctx's threads: in whole panels of columns (kNr) when out is at least as
// wide as tall, else in whole cache blocks of rows. Panels rather than cache blocks of columns
// balance the threads on the products of a few blocks (attention's 197 columns were 128 and 69).
// Each part packs its own blocks on its own stack.
template <typename C>
void gemm_parts(const KernelRuntimeContext& ctx, int64_t m, int64_t n, int64_t k,
                const GemmInput& a, const GemmInput& b, const GemmOutput& out,
                const GemmEpilogue& epilogue, const BlockKernel<C>& kernel) {
  using Cache = Blocks<C>;
  const bool by_columns = n >= m;
  const int64_t block = by_columns ? Cache::kNr : Cache::kMc;
  const int64_t extent = by_columns ? n : m;
  const int64_t block_work = block * (by_columns ? m : n) * (k > 0 ? k : 1);
  const int64_t grain = block_work >= kGemmGrain ? 1 : (kGemmGrain + block_work - 1) / block_work;
  parallel_for(ctx, 0, (extent + block - 1) / block, grain, [&](int64_t first, int64_t last) {
    const int64_t begin = first * block;
    const int64_t end = last * block < extent ? last * block : extent;
    const GemmPart part = by_columns ? GemmPart{0, m, begin, end} : GemmPart{begin, end, 0, n};
    gemm_typed<C>(part, k, a, b, out, epilogue, kernel);
  });
}

}  // namespace

void gemm(const KernelRuntimeContext& ctx, int64_t m, int64_t n, int64_t k, const GemmInput& a,
          const GemmInput& b, const GemmOutput& out, const GemmEpilogue& epilogue) {
  if (m == 0 || n == 0) return;
  dispatch_compute_type(out.dtype, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (compute_type_selected<C>()) {
      if constexpr (std::is_same_v<C, float>) {  // double and int64 keep their code small
        if (dot_products_fit(m, a, b, out)) return gemm_dot(ctx, m, n, k, a, b, out, epilogue);
        if (gemv_fits(m, a, b, out)) return gemm_gemv(ctx, m, n, k, a, b, out, epilogue);
      }
      constexpr int64_t kRows = Shape<C, 32>::kMr;
      BlockKernel<C> kernel = {block_base<C>, kRows};
      const isa::GemmBlock<C, Panels<C>, TileStore<C>> wide =
          isa::gemm_block<TileBlock<C>, C, Panels<C>, TileStore<C>>(
              [&] { return wide_tiles_pay<C>(m, n, k); });
      if (wide.run != nullptr) {
        kernel = {wide.run, wide.vector_bytes == 64 ? Shape<C, 64>::kMr : kRows};
      }
      gemm_parts<C>(ctx, m, n, k, a, b, out, epilogue, kernel);
    }
  });
}

// Here, so that it answers for the dtypes this file's gemm was compiled with.
bool check_gemm_dtype(KernelRuntimeContext& ctx, ScalarType dtype, const char* op) {
  return check_compute_type_compiled(ctx, dtype, op);
}

}  // namespace kiln::portable
