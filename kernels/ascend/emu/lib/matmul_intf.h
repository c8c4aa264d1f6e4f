// The high-level Matmul API (GM in, GM out, ND layout) for emulated kernels, checked.
#pragma once

#include <cstdint>
#include <exception>
#include <type_traits>
#include <vector>

#include "kernels/ascend/emu/api/detail.h"
#include "kernels/ascend/emu/api/global_tensor.h"
#include "kernels/ascend/emu/api/local_tensor.h"
#include "kernels/ascend/emu/api/pipe.h"
#include "kernels/ascend/emu/kernel_tiling/kernel_tiling.h"

enum class CubeFormat { ND, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode { NONE, BSNGD, SBNGD, BNGS1S2, NORMAL };

namespace kiln::ascend::emu::detail {

// One IterateAll as the checker sees it (src/matmul.cpp): tiling, shapes, operand views.
struct MatmulCall {
  const TCubeTiling* tiling;
  int32_t org_m, org_n, org_ka, org_kb;
  int32_t m, n, k;  // this call's shape: the single-core shape or the tail
  uint32_t a_size, c_size, bias_size;
  bool float_inputs, bf16_inputs;
  bool trans_a, trans_b, a_set, b_set, bias_set;
  GmView a, b, bias, c;
  const LocalRef* workspace;  // SetLocalWorkspace's tensor, or null
};

// Checks the tiling against the SoC's L1/L0 sizes, the ND row strides, the UB workspace and every
// operand's GM extent; counts the baseM x baseN x baseK steps as cube instructions.
void check_matmul(const MatmulCall& call);

// A Matmul object's life: it ends exactly once (End), after its last use. `api` is the call
// being made; raises when the object has already ended.
void check_matmul_alive(bool ended, const char* api);
// The kernel returns: an object registered (Init) but not ended is an error, unless the kernel
// is already unwinding from another violation.
void check_matmul_ended(bool initialized, bool ended, int uncaught_at_start);

}  // namespace kiln::ascend::emu::detail

namespace matmul {

using ::CubeFormat;
using ::LayoutMode;

template <AscendC::TPosition POSITION, CubeFormat FORMAT, class TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct MatmulType {
  static constexpr AscendC::TPosition pos = POSITION;
  static constexpr CubeFormat format = FORMAT;
  using T = TYPE;
  static constexpr bool isTrans = ISTRANS;
  static constexpr LayoutMode layout = LAYOUT;
  static constexpr bool ibShare = IBSHARE;
};

// Scheduling templates change how the device pipelines a matmul, never its result.
struct MatmulConfig {
  int32_t scheduleKind;
};
inline constexpr MatmulConfig CFG_NORM{0};
inline constexpr MatmulConfig CFG_MDL{1};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE,
          const MatmulConfig& MM_CFG = CFG_NORM>
class Matmul {
  using A = typename A_TYPE::T;
  using B = typename B_TYPE::T;
  using C = typename C_TYPE::T;
  using Bias = typename BIAS_TYPE::T;
  static_assert(A_TYPE::pos == AscendC::TPosition::GM && B_TYPE::pos == AscendC::TPosition::GM &&
                    C_TYPE::pos == AscendC::TPosition::GM &&
                    BIAS_TYPE::pos == AscendC::TPosition::GM,
                "Matmul (emulated): operands must be MatmulType<TPosition::GM, ...>");
  static_assert(A_TYPE::format == CubeFormat::ND && B_TYPE::format == CubeFormat::ND &&
                    C_TYPE::format == CubeFormat::ND,
                "Matmul (emulated): operands must be CubeFormat::ND");
  static_assert(std::is_same_v<A, B>, "Matmul: A and B must have the same type");
  static_assert(kiln::ascend::emu::detail::kOneOf<A, half, bfloat16_t, float>,
                "Matmul: inputs must be half, bfloat16_t or float");
  static_assert(kiln::ascend::emu::detail::kOneOf<C, half, bfloat16_t, float>,
                "Matmul: C must be half, bfloat16_t or float");
  static_assert(kiln::ascend::emu::detail::kOneOf<Bias, half, bfloat16_t, float>,
                "Matmul: the bias must be half, bfloat16_t or float");

 public:
  Matmul() = default;
  Matmul(const Matmul&) = delete;
  Matmul& operator=(const Matmul&) = delete;
  // As on the device, a kernel that registers a Matmul object ends it before it returns.
  ~Matmul() noexcept(false) {
    kiln::ascend::emu::detail::check_matmul_ended(initialized_, ended_, uncaught_at_start_);
  }

  void Init(const TCubeTiling* tiling, AscendC::TPipe* tpipe = nullptr) {
    (void)tpipe;
    alive("Init");
    if (tiling == nullptr) kiln::ascend::emu::detail::raise("Matmul::Init: the tiling is null");
    tiling_ = *tiling;
    initialized_ = true;
    SetOrgShape(tiling_.M, tiling_.N, tiling_.Ka, tiling_.Kb);
    SetSingleShape(tiling_.singleCoreM, tiling_.singleCoreN, tiling_.singleCoreK);
  }

  void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK); }
  void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
    (void)orgKc;
    alive("SetOrgShape");
    org_m_ = orgM;
    org_n_ = orgN;
    org_ka_ = orgKa;
    org_kb_ = orgKb;
  }
  void SetSingleShape(int singleM, int singleN, int singleK) {
    alive("SetSingleShape");
    m_ = singleM;
    n_ = singleN;
    k_ = singleK;
  }
  // The last tiles of a matrix are smaller than singleCore*: -1 keeps a dimension.
  void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
    alive("SetTail");
    if (tailM >= 0) m_ = tailM;
    if (tailN >= 0) n_ = tailN;
    if (tailK >= 0) k_ = tailK;
  }

  void SetTensorA(const AscendC::GlobalTensor<A>& gm, bool isTransposeA = false) {
    alive("SetTensorA");
    a_ = gm;
    trans_a_ = isTransposeA;
    a_set_ = true;
  }
  void SetTensorB(const AscendC::GlobalTensor<B>& gm, bool isTransposeB = false) {
    alive("SetTensorB");
    b_ = gm;
    trans_b_ = isTransposeB;
    b_set_ = true;
  }
  void SetBias(const AscendC::GlobalTensor<Bias>& gm) {
    alive("SetBias");
    bias_ = gm;
    bias_set_ = true;
  }
  void DisableBias() { bias_set_ = false; }
  void ClearBias() { bias_set_ = false; }
  // The UB the Matmul API converts ND operands through where the cube has no ND path (Ascend310P);
  // checked at IterateAll against the tiling's transLength.
  void SetLocalWorkspace(const AscendC::LocalTensor<uint8_t>& tmpBuffer) {
    alive("SetLocalWorkspace");
    workspace_ = tmpBuffer;
    workspace_set_ = true;
  }

  // C = A x B (+ bias), accumulated in float and rounded once to C's type; with enAtomic the
  // product is added to what C holds.
  template <bool sync = true>
  void IterateAll(const AscendC::GlobalTensor<C>& gm, uint8_t enAtomic = 0,
                  bool enSequentialWrite = false, bool waitIterateAll = false,
                  bool fakeMsg = false) {
    (void)enSequentialWrite;
    (void)waitIterateAll;
    (void)fakeMsg;
    alive("IterateAll");
    namespace detail = kiln::ascend::emu::detail;
    detail::require_dtype<A>("Matmul");
    detail::require_dtype<C>("Matmul");
    detail::require_dtype<Bias>("Matmul");
    detail::MatmulCall call{initialized_ ? &tiling_ : nullptr,
                            org_m_,
                            org_n_,
                            org_ka_,
                            org_kb_,
                            m_,
                            n_,
                            k_,
                            sizeof(A),
                            sizeof(C),
                            sizeof(Bias),
                            std::is_same_v<A, float>,
                            std::is_same_v<A, bfloat16_t>,
                            trans_a_,
                            trans_b_,
                            a_set_,
                            b_set_,
                            bias_set_,
                            a_.view(),
                            b_.view(),
                            bias_.view(),
                            gm.view(),
                            workspace_set_ ? &workspace_.ref() : nullptr};
    detail::check_matmul(call);
    multiply(gm, enAtomic != 0);
  }

  // Releases the object: once per kernel, after its last IterateAll.
  void End() {
    alive("End");
    ended_ = true;
  }

 private:
  void alive(const char* api) const { kiln::ascend::emu::detail::check_matmul_alive(ended_, api); }

  void multiply(const AscendC::GlobalTensor<C>& gm, bool accumulate) {
    const A* a = a_.GetPhyAddr();
    const B* b = b_.GetPhyAddr();
    const Bias* bias = bias_.GetPhyAddr();
    C* c = gm.GetPhyAddr();
    // Row strides of the stored matrices: A is M x Ka (Ka x M transposed), B is Kb x N
    // (N x Kb transposed), C is M x N.
    const int64_t lda = trans_a_ ? org_m_ : org_ka_;
    const int64_t ldb = trans_b_ ? org_kb_ : org_n_;
    std::vector<float> row(static_cast<size_t>(n_));
    for (int64_t i = 0; i < m_; ++i) {
      for (int64_t j = 0; j < n_; ++j) row[j] = bias_set_ ? static_cast<float>(bias[j]) : 0.0f;
      for (int64_t kk = 0; kk < k_; ++kk) {
        const float av = static_cast<float>(trans_a_ ? a[kk * lda + i] : a[i * lda + kk]);
        for (int64_t j = 0; j < n_; ++j) {
          row[j] += av * static_cast<float>(trans_b_ ? b[j * ldb + kk] : b[kk * ldb + j]);
        }
      }
      C* out = c + i * org_n_;
      for (int64_t j = 0; j < n_; ++j) {
        out[j] = static_cast<C>(accumulate ? static_cast<float>(out[j]) + row[j] : row[j]);
      }
      if (n_ > 0) kiln::ascend::emu::detail::record_gm_write(out, uint64_t(n_) * sizeof(C));
    }
  }

  TCubeTiling tiling_{};
  bool initialized_ = false;
  int32_t org_m_ = 0, org_n_ = 0, org_ka_ = 0, org_kb_ = 0;
  int32_t m_ = 0, n_ = 0, k_ = 0;
  AscendC::GlobalTensor<A> a_;
  AscendC::GlobalTensor<B> b_;
  AscendC::GlobalTensor<Bias> bias_;
  bool trans_a_ = false, trans_b_ = false;
  bool a_set_ = false, b_set_ = false, bias_set_ = false;
  AscendC::LocalTensor<uint8_t> workspace_;
  bool workspace_set_ = false;
  bool ended_ = false;
  int uncaught_at_start_ = std::uncaught_exceptions();
};

// REGIST_MATMUL_OBJ(&pipe, workspace, mm, &tiling [, mm2, &tiling2 ...]).
inline void register_matmul_objects(AscendC::TPipe*, __gm__ uint8_t*) {}

template <class Mm, class... Rest>
void register_matmul_objects(AscendC::TPipe* pipe, __gm__ uint8_t* workspace, Mm& mm,
                             const TCubeTiling* tiling, Rest&&... rest) {
  if (tiling != nullptr) mm.Init(tiling, pipe);
  register_matmul_objects(pipe, workspace, rest...);
}

}  // namespace matmul

namespace AscendC {
using matmul::Matmul;
using matmul::MatmulConfig;
using matmul::MatmulType;
}  // namespace AscendC

#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
  ::matmul::register_matmul_objects(tpipe, workspace, __VA_ARGS__)
