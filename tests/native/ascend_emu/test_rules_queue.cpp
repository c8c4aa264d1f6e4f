// Broken kernels for rule 4: the queue state machine (alloc -> EnQue -> DeQue -> free).
#include <cstdint>

#include "kernel_operator.h"
#include "tests/native/ascend_emu/harness.h"

using namespace AscendC;

// Which misuse a kernel commits; every case starts from the same correct setup.
enum Misuse : uint32_t {
  kAllocWithoutFree,
  kDequeEmpty,
  kEnqueuePastDepth,
  kDoubleFree,
  kForeignFree,
  kUseAfterFree,
  kUseWhileQueued,
  kWriteAfterFree,
  kTooManyBuffers,
  kInitTwice,
  kNoMisuse,
};

extern "C" __global__ __aicore__ void emu_queue_misuse(GM_ADDR x, uint32_t misuse) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in;
  TQue<TPosition::VECOUT, 1> out;
  TBuf<TPosition::VECCALC> scratch;
  pipe.InitBuffer(in, 2, 256);
  pipe.InitBuffer(out, 1, 256);
  pipe.InitBuffer(scratch, 256);
  GlobalTensor<float> x_gm;
  x_gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 64);

  LocalTensor<float> a = in.AllocTensor<float>();
  DataCopy(a, x_gm, 64);
  switch (misuse) {
    case kAllocWithoutFree: {
      LocalTensor<float> b = in.AllocTensor<float>();
      LocalTensor<float> c = in.AllocTensor<float>();  // both buffers are taken
      (void)b;
      (void)c;
      break;
    }
    case kDequeEmpty:
      in.EnQue(a);
      a = in.DeQue<float>();
      a = in.DeQue<float>();
      break;
    case kEnqueuePastDepth: {
      LocalTensor<float> b = in.AllocTensor<float>();
      in.EnQue(a);
      in.EnQue(b);  // depth 1
      break;
    }
    case kDoubleFree:
      in.FreeTensor(a);
      in.FreeTensor(a);
      break;
    case kForeignFree:
      out.FreeTensor(a);
      break;
    case kUseAfterFree:
      in.FreeTensor(a);
      (void)a.GetValue(5);
      break;
    case kUseWhileQueued: {
      in.EnQue(a);
      LocalTensor<float> s = scratch.Get<float>();
      Exp(s, a, 64);
      break;
    }
    case kWriteAfterFree: {
      LocalTensor<float> stale = a;
      in.FreeTensor(a);
      LocalTensor<float> again = in.AllocTensor<float>();
      again = in.AllocTensor<float>();  // the ring hands out the freed buffer 0 again
      Duplicate(stale, 1.0f, 64);
      break;
    }
    case kTooManyBuffers: {
      TQue<TPosition::VECIN, 1> more1, more2, more3, more4;
      pipe.InitBuffer(more1, 2, 32);
      pipe.InitBuffer(more2, 2, 32);
      pipe.InitBuffer(more3, 2, 32);  // 8 at VECIN: the limit
      pipe.InitBuffer(more4, 2, 32);
      break;
    }
    case kInitTwice:
      pipe.InitBuffer(out, 1, 256);
      break;
    default:
      in.EnQue(a);
      a = in.DeQue<float>();
      Muls(a, a, 2.0f, 64);
      in.FreeTensor(a);
      break;
  }
}

namespace emu_test {
namespace {

kiln::ascend::LaunchOutcome run_misuse(uint32_t misuse) {
  DevicePool pool;
  float* x = pool.alloc<float>(64);
  return KILN_ASCEND_LAUNCH(emu_queue_misuse, 2, nullptr, x, misuse);
}

TEST(EmuQueueRuleTest, CorrectUseOfTheQueues) { EXPECT_LAUNCH_OK(run_misuse(kNoMisuse)); }

TEST(EmuQueueRuleTest, AllocTensorWithNoFreeBuffer) {
  EXPECT_LAUNCH_FAILS(run_misuse(kAllocWithoutFree), "emu_queue_misuse (block ",
                      "TQue<VECIN>#0::AllocTensor with no free buffer: all 2 buffers are allocated",
                      "a hang");
}

TEST(EmuQueueRuleTest, DeQueOnAnEmptyQueue) {
  EXPECT_LAUNCH_FAILS(run_misuse(kDequeEmpty), "emu_queue_misuse (block ",
                      "TQue<VECIN>#0::DeQue on an empty queue");
}

TEST(EmuQueueRuleTest, EnQuePastTheDepth) {
  EXPECT_LAUNCH_FAILS(run_misuse(kEnqueuePastDepth), "emu_queue_misuse (block ",
                      "TQue<VECIN>#0::EnQue past the queue depth: the queue has depth 1");
}

TEST(EmuQueueRuleTest, FreeTensorTwice) {
  EXPECT_LAUNCH_FAILS(run_misuse(kDoubleFree), "emu_queue_misuse (block ",
                      "TQue<VECIN>#0::FreeTensor: TQue<VECIN>#0 buffer 0 is already free",
                      "FreeTensor twice");
}

TEST(EmuQueueRuleTest, FreeTensorOfAnotherQueue) {
  EXPECT_LAUNCH_FAILS(run_misuse(kForeignFree), "emu_queue_misuse (block ",
                      "TQue<VECOUT>#1::FreeTensor: the tensor belongs to TQue<VECIN>#0 buffer 0",
                      "a foreign tensor");
}

TEST(EmuQueueRuleTest, UseAfterFree) {
  EXPECT_LAUNCH_FAILS(run_misuse(kUseAfterFree), "emu_queue_misuse (block ",
                      "LocalTensor::GetValue tensor: uses TQue<VECIN>#0 buffer 0",
                      "use after free");
}

TEST(EmuQueueRuleTest, UseWhileQueued) {
  EXPECT_LAUNCH_FAILS(run_misuse(kUseWhileQueued), "emu_queue_misuse (block ",
                      "Exp src: uses TQue<VECIN>#0 buffer 0 while it sits in the queue");
}

TEST(EmuQueueRuleTest, WriteThroughAStaleTensor) {
  EXPECT_LAUNCH_FAILS(run_misuse(kWriteAfterFree), "emu_queue_misuse (block ",
                      "Duplicate dst: uses TQue<VECIN>#0 buffer 0",
                      "use after free of a stale tensor");
}

TEST(EmuQueueRuleTest, MoreThanEightBuffersPerPosition) {
  EXPECT_LAUNCH_FAILS(run_misuse(kTooManyBuffers), "emu_queue_misuse (block ",
                      "TPipe::InitBuffer of TQue<VECIN>#6 (2 buffers of 32 B): 10 queue buffers at "
                      "TPosition VECIN",
                      "at most 8 buffers per TPosition");
}

TEST(EmuQueueRuleTest, InitBufferTwice) {
  EXPECT_LAUNCH_FAILS(run_misuse(kInitTwice), "emu_queue_misuse (block ",
                      "TPipe::InitBuffer called twice for TQue<VECOUT>#1");
}

}  // namespace

}  // namespace emu_test
