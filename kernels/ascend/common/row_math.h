// Device helpers of Kiln's row kernels (reduce, softmax, layer_norm): accurate row sums, scalar
// results of vector instructions, and the syncs a scalar read or write of UB needs.
#pragma once

#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"

namespace kiln::ascend {

// Waits until the pipe before the event has finished what the pipe after it needs (e.g. V_S:
// vector results the scalar unit reads with GetValue).
template <AscendC::HardEvent kEvent>
__aicore__ inline void wait_pipe() {
  // GetTPipePtr is at global scope (CANN's kernel_common.h), not in AscendC.
  const int32_t id = static_cast<int32_t>(::GetTPipePtr()->FetchEventID(kEvent));
  AscendC::SetFlag<kEvent>(id);
  AscendC::WaitFlag<kEvent>(id);
}

// The float the vector unit last wrote at t[0], read on the scalar unit.
__aicore__ inline float vector_result(const AscendC::LocalTensor<float>& t) {
  wait_pipe<AscendC::HardEvent::V_S>();
  return t.GetValue(0);
}

// The sum of data[0, n) (n >= 1) in float, as a balanced tree: while more than one 256-byte
// repeat remains, the upper half is added onto the lower half (halves start on 32-byte
// boundaries), then ReduceSum adds the last repeat as a tree. The error grows with log2(n)
// rather than with n, as it would for ReduceSum's in-order sum of repeats. Destroys data.
// `work` holds at least 8 floats.
__aicore__ inline float tree_sum(const AscendC::LocalTensor<float>& data,
                                 const AscendC::LocalTensor<float>& work, uint32_t n) {
  while (n > 64) {
    const uint32_t upper = ((n + 1) / 2 + 7) / 8 * 8;
    AscendC::Add(data, data, data[upper], static_cast<int32_t>(n - upper));
    AscendC::PipeBarrier<PIPE_V>();
    n = upper;
  }
  AscendC::ReduceSum(work, data, work, static_cast<int32_t>(n));
  return vector_result(work);
}

// The largest of data[0, n) (n >= 1) as the vector unit orders floats (NaN is not promised to
// win). `work` holds 2 * ceil(n / 64) floats rounded up to 8.
__aicore__ inline float row_max(const AscendC::LocalTensor<float>& data,
                                const AscendC::LocalTensor<float>& work, uint32_t n) {
  AscendC::ReduceMax(work, data, work, static_cast<int32_t>(n));
  return vector_result(work);
}

// x in the first 32-byte block (8 floats) of `scratch`, for a vector instruction on one float.
__aicore__ inline void vector_scalar(const AscendC::LocalTensor<float>& scratch, float x) {
  wait_pipe<AscendC::HardEvent::S_V>();
  AscendC::Duplicate(scratch, x, 8);
}

// e^x, ln(x) and sqrt(x) of one float through the vector unit (the scalar unit has none of
// them); `scratch` holds at least 8 floats.
__aicore__ inline float vector_exp(const AscendC::LocalTensor<float>& scratch, float x) {
  vector_scalar(scratch, x);
  AscendC::Exp(scratch, scratch, 8);
  return vector_result(scratch);
}

__aicore__ inline float vector_ln(const AscendC::LocalTensor<float>& scratch, float x) {
  vector_scalar(scratch, x);
  AscendC::Ln(scratch, scratch, 8);
  return vector_result(scratch);
}

__aicore__ inline float vector_sqrt(const AscendC::LocalTensor<float>& scratch, float x) {
  vector_scalar(scratch, x);
  AscendC::Sqrt(scratch, scratch, 8);
  return vector_result(scratch);
}

// Storage tiles of half/bfloat16 to float and back (round to nearest even, once).
template <typename T>
__aicore__ inline void widen(const AscendC::LocalTensor<float>& dst,
                             const AscendC::LocalTensor<T>& src, uint32_t n) {
  AscendC::Cast(dst, src, AscendC::RoundMode::CAST_NONE, n);
  AscendC::PipeBarrier<PIPE_V>();
}

template <typename T>
__aicore__ inline void narrow(const AscendC::LocalTensor<T>& dst,
                              const AscendC::LocalTensor<float>& src, uint32_t n) {
  AscendC::PipeBarrier<PIPE_V>();
  AscendC::Cast(dst, src, kNarrowToNearest<T>, n);
}

}  // namespace kiln::ascend
