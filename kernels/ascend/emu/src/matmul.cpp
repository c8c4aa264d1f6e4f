// Matmul API checks: the tiling against the SoC's L1/L0 buffers, the ND row strides, the UB
// workspace, every operand's GM extent, and the object's life (End exactly once).
#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

#include "kernels/ascend/emu/lib/matmul_intf.h"
#include "kernels/ascend/emu/src/state.h"

namespace kiln::ascend::emu::detail {
namespace {

const char* const kApi = "Matmul::IterateAll";
// The ND copies of the Matmul API take row strides (Ka, Kb, N) in [1, 65535] elements.
constexpr int64_t kMaxRowStride = 65535;
// On Ascend910B the Matmul API keeps the end of L1 for its own messages (KFC_L1_RESERVER_SIZE).
constexpr uint64_t kL1Reserve910B = 128;

std::string field(const char* name, int64_t value) {
  return std::string("TCubeTiling.") + name + " " + std::to_string(value);
}

void require_positive(const char* name, int64_t value) {
  if (value <= 0) raise(std::string(kApi) + ": " + field(name, value) + " must be positive");
}

void require_within(const char* name, int64_t value, const char* limit_name, int64_t limit) {
  require_positive(name, value);
  if (value > limit) {
    raise(std::string(kApi) + ": " + field(name, value) + " exceeds " + limit_name + " " +
          std::to_string(limit));
  }
}

void require_multiple(const char* name, int64_t value, int64_t unit, const char* why) {
  require_positive(name, value);
  if (value % unit != 0) {
    raise(std::string(kApi) + ": " + field(name, value) + " is not a multiple of " +
          std::to_string(unit) + " (" + why + ")");
  }
}

void require_fits(const char* buffer, uint64_t bytes, uint64_t capacity, const std::string& what,
                  const char* soc) {
  if (bytes > capacity) {
    raise(std::string(kApi) + ": " + what + " needs " + format_bytes(bytes) + " of " + buffer +
          ", which holds " + format_bytes(capacity) + " on " + soc);
  }
}

void require_one_of_two(const char* name, int64_t value, int64_t first, int64_t second,
                        const char* why) {
  if (value != first && value != second) {
    raise(std::string(kApi) + ": " + field(name, value) + " must be " + std::to_string(first) +
          " or " + std::to_string(second) + " (" + why + ")");
  }
}

void require_row_stride(const char* operand, const char* stride_name, int64_t stride) {
  if (stride < 1 || stride > kMaxRowStride) {
    raise(std::string(kApi) + ": the ND row stride of " + operand + " (" + stride_name + ") is " +
          std::to_string(stride) + " elements; the Matmul API's ND copies take 1 to " +
          std::to_string(kMaxRowStride) + " (tile the matrix, or decline it on the host)");
  }
}

// depthA1 (depthB1) holds stepM x stepKa (stepN x stepKb) base tiles, once or twice (buffered).
void require_depth(const char* name, int64_t depth, const char* step_names, int64_t steps) {
  if (depth != steps && depth != 2 * steps) {
    raise(std::string(kApi) + ": " + field(name, depth) + " is not " + step_names + " (" +
          std::to_string(steps) + ") or twice that");
  }
}

uint64_t matmul_l1_bytes(const SocProfile& soc) {
  return soc.soc == Soc::Ascend910B ? soc.l1_bytes - kL1Reserve910B : soc.l1_bytes;
}

// Where the cube has no ND path (Ascend310P), each ND operand tile converts to NZ through UB, and
// C back to ND: the tiling's transLength must hold the largest conversion, and the workspace
// (SetLocalWorkspace) twice that, or the bias row if larger, as the Matmul API's default config
// uses it. Elsewhere there is no workspace to give.
void check_workspace(const MatmulCall& call, const SocProfile& soc) {
  const TCubeTiling& t = *call.tiling;
  if (soc.soc != Soc::Ascend310P) {
    if (call.workspace != nullptr) {
      raise(std::string(kApi) + ": SetLocalWorkspace on " + soc.name +
            ", whose cube reads ND operands itself (the Matmul API asserts there); only "
            "Ascend310P takes a UB workspace");
    }
    return;
  }
  const uint64_t a_tile = uint64_t(t.baseM) * t.baseK * call.a_size;
  const uint64_t b_tile = uint64_t(t.baseK) * t.baseN * call.a_size;
  const uint64_t c_tile = uint64_t(t.baseM) * t.baseN * call.c_size;
  const uint64_t bias_bytes = call.bias_set ? uint64_t(t.baseN) * call.bias_size : 0;
  const uint64_t needed = std::max(std::max(a_tile, b_tile), std::max(c_tile, bias_bytes));
  if (t.transLength < 0 || static_cast<uint64_t>(t.transLength) < needed) {
    raise(std::string(kApi) + ": " + field("transLength", t.transLength) + " is less than the " +
          format_bytes(needed) + " one ND<->NZ conversion of a base tile needs on " + soc.name +
          " (the largest of baseM x baseK of A, baseK x baseN of B, baseM x baseN of C, the bias)");
  }
  const uint64_t workspace = std::max(2 * static_cast<uint64_t>(t.transLength), bias_bytes);
  if (call.workspace == nullptr) {
    raise(std::string(kApi) + ": no SetLocalWorkspace on " + soc.name +
          ": the Matmul API converts ND operands through UB there and needs a workspace of " +
          format_bytes(workspace) + " (2 x transLength)");
  }
  check_local(*call.workspace, kApi, "local workspace (SetLocalWorkspace)", 0, workspace, 1, 32);
}

// Bytes from a matrix's first element to one past its last: rows x cols with a row stride.
uint64_t matrix_extent(int64_t rows, int64_t cols, int64_t stride, uint32_t elem_size) {
  return (static_cast<uint64_t>(rows - 1) * stride + cols) * elem_size;
}

uint64_t ceil_div(int64_t a, int64_t b) { return static_cast<uint64_t>((a + b - 1) / b); }

// The bytes one IterateAll moves, as the emulator models the Matmul API: baseM x baseN output
// tiles in iterateOrder (0: along m first, n the outer loop), each needing A's rows x k panel and
// B's k x columns panel, with the bias for those columns, in L1. A panel stays in L1 for the next
// tile when that tile needs the same one and all its k tiles fit at once (stepKa, stepKb >= the k
// tiles); otherwise it is loaded again. Each result tile goes L0C -> GM once.
void note_cube_bytes(const MatmulCall& call) {
  const TCubeTiling& t = *call.tiling;
  const uint64_t m_tiles = ceil_div(call.m, t.baseM);
  const uint64_t n_tiles = ceil_div(call.n, t.baseN);
  const uint64_t k_tiles = ceil_div(call.k, t.baseK);
  const bool a_stays = static_cast<uint64_t>(t.stepKa) >= k_tiles;
  const bool b_stays = static_cast<uint64_t>(t.stepKb) >= k_tiles;
  const uint64_t k = static_cast<uint64_t>(call.k);
  uint64_t loaded = 0;
  uint64_t stored = 0;
  uint64_t a_panel = ~uint64_t{0};
  uint64_t b_panel = ~uint64_t{0};
  const uint64_t outer_tiles = t.iterateOrder == 0 ? n_tiles : m_tiles;
  const uint64_t inner_tiles = t.iterateOrder == 0 ? m_tiles : n_tiles;
  for (uint64_t outer = 0; outer < outer_tiles; ++outer) {
    for (uint64_t inner = 0; inner < inner_tiles; ++inner) {
      const uint64_t mi = t.iterateOrder == 0 ? inner : outer;
      const uint64_t ni = t.iterateOrder == 0 ? outer : inner;
      const uint64_t rows = std::min<uint64_t>(t.baseM, call.m - mi * t.baseM);
      const uint64_t cols = std::min<uint64_t>(t.baseN, call.n - ni * t.baseN);
      if (!a_stays || a_panel != mi) loaded += rows * k * call.a_size;
      if (!b_stays || b_panel != ni) {
        loaded += k * cols * call.a_size + (call.bias_set ? cols * call.bias_size : 0);
      }
      a_panel = mi;
      b_panel = ni;
      stored += rows * cols * call.c_size;
    }
  }
  KernelReport& report = launch_context().report;
  report.gm_to_l1_bytes += loaded;
  report.l0c_to_gm_bytes += stored;
}

}  // namespace

void check_matmul(const MatmulCall& call) {
  const SocProfile& soc = launch_context().soc;
  if (call.tiling == nullptr) {
    raise(std::string(kApi) +
          ": the Matmul object has no tiling (REGIST_MATMUL_OBJ or Init "
          "with a non-null TCubeTiling first)");
  }
  if (!call.a_set || !call.b_set) {
    raise(std::string(kApi) + ": SetTensorA and SetTensorB must come first");
  }
  if (call.float_inputs && soc.soc == Soc::Ascend310P) {
    raise(std::string(kApi) + ": float inputs need Ascend910B; the " + soc.name +
          " cube multiplies half");
  }
  const TCubeTiling& t = *call.tiling;
  require_positive("M", call.org_m);
  require_positive("N", call.org_n);
  require_positive("Ka", call.org_ka);
  if (call.org_ka != call.org_kb) {
    raise(std::string(kApi) + ": " + field("Ka", call.org_ka) + " differs from " +
          field("Kb", call.org_kb) + " (A's columns must match B's rows)");
  }
  require_within("singleCoreM", t.singleCoreM, "M", call.org_m);
  require_within("singleCoreN", t.singleCoreN, "N", call.org_n);
  require_within("singleCoreK", t.singleCoreK, "Ka", call.org_ka);
  const int64_t c0 = 32 / call.a_size;  // elements of one 32 B fractal row
  require_multiple("baseM", t.baseM, 16, "the cube's fractal is 16 rows");
  require_multiple("baseN", t.baseN, 16, "the cube's fractal is 16 columns");
  require_multiple("baseK", t.baseK, c0, "a fractal row is 32 B of the input type");
  require_positive("depthA1", t.depthA1);
  require_positive("depthB1", t.depthB1);
  require_positive("stepM", t.stepM);
  require_positive("stepN", t.stepN);
  require_positive("stepKa", t.stepKa);
  require_positive("stepKb", t.stepKb);
  if (std::max(t.stepKa, t.stepKb) % std::min(t.stepKa, t.stepKb) != 0) {
    raise(std::string(kApi) + ": " + field("stepKa", t.stepKa) + " and " +
          field("stepKb", t.stepKb) + ": the larger must be a multiple of the smaller");
  }
  require_depth("depthA1", t.depthA1, "stepM x stepKa", int64_t{t.stepM} * t.stepKa);
  require_depth("depthB1", t.depthB1, "stepN x stepKb", int64_t{t.stepN} * t.stepKb);
  require_one_of_two("iterateOrder", t.iterateOrder, 0, 1, "0: along m first, 1: along n first");
  require_one_of_two("dbL0A", t.dbL0A, 1, 2, "single or double buffered");
  require_one_of_two("dbL0B", t.dbL0B, 1, 2, "single or double buffered");
  require_one_of_two("dbL0C", t.dbL0C, 1, 2, "single or double buffered");
  const uint64_t a_tile = uint64_t(t.baseM) * t.baseK * call.a_size;
  const uint64_t b_tile = uint64_t(t.baseK) * t.baseN * call.a_size;
  require_fits("L0A", t.dbL0A * a_tile, soc.l0a_bytes, "dbL0A baseM x baseK tiles of A", soc.name);
  require_fits("L0B", t.dbL0B * b_tile, soc.l0b_bytes, "dbL0B baseK x baseN tiles of B", soc.name);
  require_fits("L0C", t.dbL0C * uint64_t(t.baseM) * t.baseN * 4, soc.l0c_bytes,
               "dbL0C baseM x baseN float accumulators", soc.name);
  const uint64_t bias_bytes = t.isBias != 0 ? uint64_t(t.baseN) * call.bias_size : 0;
  const uint64_t l1 = matmul_l1_bytes(soc);
  const std::string l1_name =
      l1 == soc.l1_bytes ? std::string("L1")
                         : "L1 (less the Matmul API's " + format_bytes(soc.l1_bytes - l1) + ")";
  require_fits(l1_name.c_str(), t.depthA1 * a_tile + t.depthB1 * b_tile + bias_bytes, l1,
               "depthA1 tiles of A, depthB1 tiles of B and the bias", soc.name);
  if (t.shareMode < 0 || t.shareMode > 2) {
    raise(std::string(kApi) + ": " + field("shareMode", t.shareMode) +
          " must be 0, 1 or 2 (what the Matmul objects of a kernel share)");
  }
  if (t.shareL1Size < 0 || static_cast<uint64_t>(t.shareL1Size) > l1) {
    raise(std::string(kApi) + ": " + field("shareL1Size", t.shareL1Size) + " is outside " +
          l1_name + ", which holds " + format_bytes(l1) + " on " + soc.name);
  }
  if (t.shareL0CSize < 0 || static_cast<uint64_t>(t.shareL0CSize) > soc.l0c_bytes) {
    raise(std::string(kApi) + ": " + field("shareL0CSize", t.shareL0CSize) +
          " is outside L0C, which holds " + format_bytes(soc.l0c_bytes) + " on " + soc.name);
  }
  if (t.shareUbSize < 0 || static_cast<uint64_t>(t.shareUbSize) > soc.ub_usable_bytes) {
    raise(std::string(kApi) + ": " + field("shareUbSize", t.shareUbSize) +
          " is outside UB, which holds " + format_bytes(soc.ub_usable_bytes) + " on " + soc.name);
  }
  // Row strides of the stored matrices: A is M x Ka (Ka x M transposed), B is Kb x N (N x Kb
  // transposed), C is M x N.
  require_row_stride("A", call.trans_a ? "M, A transposed" : "Ka",
                     call.trans_a ? call.org_m : call.org_ka);
  require_row_stride("B", call.trans_b ? "Kb, B transposed" : "N",
                     call.trans_b ? call.org_kb : call.org_n);
  require_row_stride("C", "N", call.org_n);
  check_workspace(call, soc);
  if ((t.isBias != 0) != call.bias_set) {
    raise(std::string(kApi) + ": " + field("isBias", t.isBias) +
          (call.bias_set ? " but SetBias was called (the device would ignore the bias)"
                         : " but SetBias was not called (the device would read a stale bias)"));
  }
  if (call.m < 0 || call.m > t.singleCoreM || call.n < 0 || call.n > t.singleCoreN || call.k < 0 ||
      call.k > t.singleCoreK) {
    raise(std::string(kApi) + ": the shape " + std::to_string(call.m) + " x " +
          std::to_string(call.n) + " x " + std::to_string(call.k) +
          " (SetTail/SetSingleShape) exceeds singleCoreM x singleCoreN x singleCoreK " +
          std::to_string(t.singleCoreM) + " x " + std::to_string(t.singleCoreN) + " x " +
          std::to_string(t.singleCoreK));
  }
  if (call.m == 0 || call.n == 0) return;
  if (call.k > 0) {
    const uint64_t a_bytes = call.trans_a ? matrix_extent(call.k, call.m, call.org_m, call.a_size)
                                          : matrix_extent(call.m, call.k, call.org_ka, call.a_size);
    const uint64_t b_bytes = call.trans_b ? matrix_extent(call.n, call.k, call.org_kb, call.a_size)
                                          : matrix_extent(call.k, call.n, call.org_n, call.a_size);
    check_gm("Matmul::IterateAll (A)", call.a, 0, a_bytes, false, true);
    check_gm("Matmul::IterateAll (B)", call.b, 0, b_bytes, false, true);
  }
  if (call.bias_set) {
    check_gm("Matmul::IterateAll (bias)", call.bias, 0, uint64_t(call.n) * call.bias_size, false,
             true);
  }
  check_gm("Matmul::IterateAll (C)", call.c, 0,
           matrix_extent(call.m, call.n, call.org_n, call.c_size), true, true);
  note_cube_instructions(ceil_div(call.m, t.baseM) * ceil_div(call.n, t.baseN) *
                         ceil_div(call.k, t.baseK));
  note_cube_bytes(call);
}

}  // namespace kiln::ascend::emu::detail

namespace kiln::ascend::emu::detail {

void check_matmul_alive(bool ended, const char* api) {
  if (!ended) return;
  if (std::strcmp(api, "End") == 0) {
    raise(
        "Matmul::End called twice: a Matmul object ends exactly once, after its last "
        "IterateAll");
  }
  raise(std::string("Matmul::") + api +
        " after End: End releases the Matmul object; call it once, after the last IterateAll");
}

void check_matmul_ended(bool initialized, bool ended, int uncaught_at_start) {
  if (!initialized || ended || std::uncaught_exceptions() > uncaught_at_start) return;
  raise(
      "the kernel returned without Matmul::End: a Matmul object registered with "
      "REGIST_MATMUL_OBJ (or Init) ends exactly once, after its last IterateAll");
}

}  // namespace kiln::ascend::emu::detail
