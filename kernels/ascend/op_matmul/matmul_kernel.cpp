// Ascend C matmul kernel: C = A x B (+ a row bias, or + what C holds) on the cube, through the
// high-level Matmul API.
//
// Each core takes C blocks (batch, rows, columns) in turn and runs one IterateAll per block over
// the whole k: the cube accumulates in float (L0C) and rounds once to C's dtype. The Matmul
// object ends once, after the core's last block. The kernel does no vector work, so on 910B it
// runs on the cube cores alone; on 310P, where the cube shares its AI core with the vector unit,
// the Matmul API converts ND operands through a UB workspace the kernel gives it.
#define ASCENDC_CUBE_ONLY  // before matmul_intf.h: no vector-core side to serve
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/op_matmul/matmul_kernels.h"
#include "kernels/ascend/op_matmul/matmul_tiling.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

// T is the storage type of A, B and C. The bias is float: SetBias takes half or float, and float
// serves bfloat16 inputs too.
template <typename T>
class MatmulKernel {
  using AType = MatmulType<TPosition::GM, CubeFormat::ND, T>;
  using BType = MatmulType<TPosition::GM, CubeFormat::ND, T, /*ISTRANS=*/true>;
  using CType = MatmulType<TPosition::GM, CubeFormat::ND, T>;
  using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

 public:
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                              const MatmulTiling& tiling) {
    t_ = tiling;
    a_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(a), t_.batches * t_.a_batch_elems);
    b_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(b), t_.batches * t_.b_batch_elems);
    c_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(c), t_.batches * t_.c_batch_elems);
    if (t_.bias != 0) bias_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias), t_.n_pitch);
    REGIST_MATMUL_OBJ(&pipe_, GetSysWorkSpacePtr(), mm_, &t_.cube);
#if !defined(__NPU_ARCH__) || __NPU_ARCH__ == 2002
    // The host sizes the workspace only where the SoC needs one (Ascend310P).
    if (t_.ub_workspace_bytes != 0) {
      pipe_.InitBuffer(workspace_, t_.ub_workspace_bytes);
      mm_.SetLocalWorkspace(workspace_.Get<uint8_t>());
    }
#endif
  }

  __aicore__ inline void Process() {
    const uint64_t per_batch = uint64_t(t_.m_blocks) * t_.n_blocks;
    const uint64_t blocks = per_batch * t_.batches;
    for (uint64_t block = GetBlockIdx(); block < blocks; block += GetBlockNum()) {
      const uint64_t batch = block / per_batch;
      const uint64_t in_batch = block % per_batch;
      MultiplyBlock(batch, in_batch / t_.n_blocks, in_batch % t_.n_blocks);
    }
    mm_.End();
  }

 private:
  // C block (mi, ni) of one batch: rows m0.., columns n0.., the last ones cut to m and n.
  __aicore__ inline void MultiplyBlock(uint64_t batch, uint64_t mi, uint64_t ni) {
    const uint64_t m0 = mi * t_.cube.singleCoreM;
    const uint64_t n0 = ni * t_.cube.singleCoreN;
    const uint64_t rows =
        t_.m - m0 < uint64_t(t_.cube.singleCoreM) ? t_.m - m0 : t_.cube.singleCoreM;
    const uint64_t cols =
        t_.n - n0 < uint64_t(t_.cube.singleCoreN) ? t_.n - n0 : t_.cube.singleCoreN;
    const bool trans_b = t_.trans_b != 0;
    mm_.SetTensorA(a_[batch * t_.a_batch_elems + m0 * t_.k_pitch]);
    mm_.SetTensorB(b_[batch * t_.b_batch_elems + (trans_b ? n0 * t_.k_pitch : n0)], trans_b);
    if (t_.bias != 0) mm_.SetBias(bias_[n0]);
    mm_.SetTail(static_cast<int>(rows), static_cast<int>(cols), static_cast<int>(t_.k));
    // enAtomic adds the product to what C holds (addmm's or linear's full addend).
    mm_.IterateAll(c_[batch * t_.c_batch_elems + m0 * t_.n_pitch + n0],
                   static_cast<uint8_t>(t_.accumulate != 0 ? 1 : 0));
  }

  TPipe pipe_;
#if !defined(__NPU_ARCH__) || __NPU_ARCH__ == 2002
  TBuf<TPosition::VECCALC> workspace_;
#endif
  Matmul<AType, BType, CType, BiasType> mm_;
  GlobalTensor<T> a_;
  GlobalTensor<T> b_;
  GlobalTensor<T> c_;
  GlobalTensor<float> bias_;
  MatmulTiling t_;
};

template <typename T>
__aicore__ inline void run_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR tiling) {
  MatmulKernel<T> kernel;
  kernel.Init(a, b, bias, c, load_tiling<MatmulTiling>(tiling));
  kernel.Process();
}

}  // namespace
}  // namespace kiln::ascend

// The entries start only the cube cores on 910B's split architecture (on 310P every AI core has
// its cube). The kernel type is declared in each entry's body, so it leads the runner here.
#if !defined(__NPU_ARCH__) || __NPU_ARCH__ == 2201
#define KILN_MATMUL_RUN                           \
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY); \
  kiln::ascend::run_matmul
#else
#define KILN_MATMUL_RUN kiln::ascend::run_matmul
#endif
KILN_ASCEND_DEFINE_KERNELS(KILN_MATMUL)
