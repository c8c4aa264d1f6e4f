// Broken kernels for the pipe ordering rule: UB bytes one pipe wrote, read by another pipe with no
// sync between them (SetFlag/WaitFlag, a queue's EnQue/DeQue, PipeBarrier<PIPE_ALL>).
#include <cstdint>

#include "kernel_operator.h"
#include "tests/native/ascend_emu/harness.h"

using namespace AscendC;

enum class Hazard : uint32_t {
  ScalarToVector,
  VectorToScalar,
  ScalarToCopyOut,
  CopyInToScalar,
  CopyInToVector
};

// One write and one read on different pipes; `synced` puts the right sync between them.
extern "C" __global__ __aicore__ void emu_pipe_order(GM_ADDR x, GM_ADDR y, uint32_t hazard,
                                                     uint32_t synced) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in;
  TQue<TPosition::VECOUT, 1> out;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(in, 1, 256);
  pipe.InitBuffer(out, 1, 256);
  pipe.InitBuffer(buf, 256);
  GlobalTensor<float> x_gm, y_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 64);
  y_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), 64);
  LocalTensor<float> t = buf.Get<float>();
  switch (static_cast<Hazard>(hazard)) {
    case Hazard::ScalarToVector:
      t.SetValue(0, 2.0f);
      if (synced != 0) emu_test::sync_pipes<HardEvent::S_V>();
      Adds(t, t, 1.0f, 64);
      break;
    case Hazard::VectorToScalar:
      Duplicate(t, 1.0f, 64);
      if (synced != 0) emu_test::sync_pipes<HardEvent::V_S>();
      (void)t.GetValue(3);
      break;
    case Hazard::ScalarToCopyOut: {
      LocalTensor<float> o = out.AllocTensor<float>();
      for (uint32_t i = 0; i < 64; ++i) o.SetValue(i, 1.0f);
      if (synced != 0) emu_test::sync_pipes<HardEvent::S_MTE3>();
      out.EnQue(o);  // orders V before MTE3, not S
      o = out.DeQue<float>();
      DataCopy(y_gm, o, 64);
      out.FreeTensor(o);
      break;
    }
    case Hazard::CopyInToScalar: {
      LocalTensor<float> i = in.AllocTensor<float>();
      DataCopy(i, x_gm, 64);
      in.EnQue(i);  // orders MTE2 before V, not S
      i = in.DeQue<float>();
      if (synced != 0) emu_test::sync_pipes<HardEvent::MTE2_S>();
      (void)i.GetValue(0);
      in.FreeTensor(i);
      break;
    }
    case Hazard::CopyInToVector:
      DataCopy(t, x_gm, 64);  // into a TBuf: no queue orders it
      if (synced != 0) PipeBarrier<PIPE_ALL>();
      Adds(t, t, 1.0f, 64);
      break;
  }
}

namespace emu_test {
namespace {

kiln::ascend::LaunchOutcome run_order(Hazard hazard, bool synced) {
  DevicePool pool;
  float* x = pool.alloc<float>(64);
  float* y = pool.alloc<float>(64);
  const uint32_t which = static_cast<uint32_t>(hazard);
  const uint32_t sync = synced ? 1 : 0;
  return KILN_ASCEND_LAUNCH(emu_pipe_order, 1, nullptr, x, y, which, sync);
}

TEST(EmuSyncRuleTest, ScalarWriteReadByTheVectorUnit) {
  EXPECT_LAUNCH_FAILS(run_order(Hazard::ScalarToVector, false),
                      "Adds src: reads UB bytes [0, 4) of TBuf<VECCALC>#2",
                      "LocalTensor::SetValue wrote on the scalar unit", "nothing orders S before V",
                      "SetFlag<HardEvent::S_V>(id) and WaitFlag<HardEvent::S_V>(id)");
  EXPECT_LAUNCH_OK(run_order(Hazard::ScalarToVector, true));
}

TEST(EmuSyncRuleTest, VectorResultReadByGetValue) {
  EXPECT_LAUNCH_FAILS(run_order(Hazard::VectorToScalar, false),
                      "LocalTensor::GetValue tensor: reads UB bytes [0, 256)",
                      "Duplicate wrote on the vector unit", "nothing orders V before S",
                      "SetFlag<HardEvent::V_S>(id)");
  EXPECT_LAUNCH_OK(run_order(Hazard::VectorToScalar, true));
}

TEST(EmuSyncRuleTest, ScalarWritesCopiedOutThroughAVecoutQueue) {
  EXPECT_LAUNCH_FAILS(run_order(Hazard::ScalarToCopyOut, false),
                      "DataCopy src: reads UB bytes [0, 256) of TQue<VECOUT>#1 buffer 0",
                      "LocalTensor::SetValue wrote on the scalar unit",
                      "nothing orders S before MTE3", "SetFlag<HardEvent::S_MTE3>(id)");
  EXPECT_LAUNCH_OK(run_order(Hazard::ScalarToCopyOut, true));
}

TEST(EmuSyncRuleTest, CopiedInBytesReadByGetValue) {
  EXPECT_LAUNCH_FAILS(run_order(Hazard::CopyInToScalar, false),
                      "LocalTensor::GetValue tensor: reads UB bytes [0, 256) of TQue<VECIN>#0",
                      "DataCopy wrote on the GM->UB DMA (MTE2)", "nothing orders MTE2 before S",
                      "SetFlag<HardEvent::MTE2_S>(id)");
  EXPECT_LAUNCH_OK(run_order(Hazard::CopyInToScalar, true));
}

TEST(EmuSyncRuleTest, CopyIntoATBufReadByTheVectorUnit) {
  EXPECT_LAUNCH_FAILS(run_order(Hazard::CopyInToVector, false),
                      "Adds src: reads UB bytes [0, 256) of TBuf<VECCALC>#2",
                      "nothing orders MTE2 before V", "SetFlag<HardEvent::MTE2_V>(id)",
                      "or PipeBarrier<PIPE_ALL>");
  EXPECT_LAUNCH_OK(run_order(Hazard::CopyInToVector, true));
}

}  // namespace
}  // namespace emu_test
