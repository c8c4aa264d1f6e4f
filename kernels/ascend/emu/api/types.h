// Ascend C's basic vocabulary for emulated kernels: qualifiers, half/bfloat16_t, positions, syncs.
#pragma once

#include <cstdint>

#include "runtime/core/half.h"

// Device qualifiers mean nothing on the CPU: the emulator gives every pointer one address space.
#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
// Task-type annotations only steer the device compiler's core selection.
#ifndef KERNEL_TASK_TYPE_DEFAULT
#define KERNEL_TASK_TYPE_DEFAULT(type)
#endif
#ifndef KERNEL_TASK_TYPE
#define KERNEL_TASK_TYPE(key, type)
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif

// half and bfloat16_t are storage types: arithmetic happens in float and every store rounds to
// nearest even, as the vector unit does.
using half = kiln::Half;
using bfloat16_t = kiln::BFloat16;

// Pipes of an AI core, for PipeBarrier. Global, as in the device toolchain.
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX };
enum event_t {
  EVENT_ID0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7
};

namespace AscendC {

enum class TPosition : uint8_t {
  GM,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  LCM = VECCALC,
  SPM,
  SHM = SPM,
  TSCM,
  MAX,
};
using QuePosition = TPosition;

const char* position_name(TPosition position);

enum class HardEvent : uint8_t {
  MTE2_MTE1,
  MTE1_MTE2,
  MTE1_M,
  M_MTE1,
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  M_V,
  V_M,
  V_V,
  MTE3_MTE1,
  MTE1_MTE3,
  MTE1_V,
  MTE2_M,
  M_MTE2,
  V_MTE1,
  M_FIX,
  FIX_M,
  MTE3_MTE2,
  MTE2_MTE3,
  S_V,
  V_S,
  S_MTE2,
  MTE2_S,
  S_MTE3,
  MTE3_S,
  MTE2_FIX,
  FIX_MTE2,
  FIX_S,
  M_S,
  FIX_MTE3,
  MAX,
};

using TEventID = int8_t;

}  // namespace AscendC

namespace kiln::ascend::emu::detail {

// The library's record of the syncs a kernel issues (src/hazard.cpp).
void note_pipe_barrier(pipe_t pipe);
void note_set_flag(AscendC::HardEvent event, int32_t id);
void note_wait_flag(AscendC::HardEvent event, int32_t id);

}  // namespace kiln::ascend::emu::detail

namespace AscendC {

constexpr uint32_t ONE_BLK_SIZE = 32;           // UB block: the unit of alignment and DMA length
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;  // bytes one vector repeat processes
constexpr uint32_t MAX_REPEAT_TIMES = 255;
constexpr uint32_t BLOCK_CUBE = 16;  // cube fractal edge

int64_t GetBlockIdx();
int64_t GetBlockNum();
// The system workspace the Matmul API uses; the emulator provides one per launch.
__gm__ uint8_t* GetSysWorkSpacePtr();
void SetSysWorkspace(__gm__ uint8_t* workspace);

// The emulator runs one instruction at a time, but it records the syncs a kernel issues: an access
// of one pipe to UB bytes another pipe wrote is accepted only after a sync that orders the two
// (src/hazard.cpp).
template <pipe_t pipe>
inline void PipeBarrier() {
  kiln::ascend::emu::detail::note_pipe_barrier(pipe);
}
template <HardEvent event>
inline void SetFlag(int32_t eventID) {
  kiln::ascend::emu::detail::note_set_flag(event, eventID);
}
template <HardEvent event>
inline void WaitFlag(int32_t eventID) {
  kiln::ascend::emu::detail::note_wait_flag(event, eventID);
}

}  // namespace AscendC
