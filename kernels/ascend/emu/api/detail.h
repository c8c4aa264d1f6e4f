// Internal hooks between the emulated Ascend C API (headers) and the checking library (src/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/ascend/emu/api/types.h"

namespace kiln::ascend::emu::detail {

// Stops the current block with a violation; the launch reports it. Only the library throws, so
// kernels compile with or without exceptions enabled.
[[noreturn]] void raise(const std::string& message);

uint32_t block_idx();
uint32_t block_num();
void note_vector_instruction();
void note_cube_instructions(uint64_t count);
void note_gm_to_ub(uint64_t bytes);
void note_ub_to_gm(uint64_t bytes);
void require_bfloat16(const char* api);

template <class T, class... Options>
inline constexpr bool kOneOf = (std::is_same_v<T, Options> || ...);

template <class T>
inline void require_dtype(const char* api) {
  if constexpr (std::is_same_v<T, bfloat16_t>) require_bfloat16(api);
}

// --- Global memory -------------------------------------------------------------------------

// A GlobalTensor as the checker sees it: where the view starts and what SetGlobalBuffer allowed.
struct GmView {
  const uint8_t* address = nullptr;
  const uint8_t* range_begin = nullptr;
  uint64_t range_bytes = 0;
  bool sized = false;  // false: SetGlobalBuffer got no size; only the allocation bounds apply
  uint32_t elem_size = 1;
};

// Checks [address + first_byte, +bytes) against the SetGlobalBuffer range and the live device
// allocations, and (when asked) the address's alignment to the element size.
void check_gm(const char* api, const GmView& view, uint64_t first_byte, uint64_t bytes, bool write,
              bool element_aligned);
void record_gm_write(const void* address, uint64_t bytes);
// "`z` + 4096 B": the kernel argument an address falls in, and the offset from it.
std::string describe_gm(const void* address);

// --- Unified Buffer --------------------------------------------------------------------------

enum class BufferState : uint8_t { Free, Allocated, Queued, Dequeued, Scratch, Released };

struct QueueRecord;

// One UB buffer: a queue slot or a TBuf. Owned by the block being run, so tensors that point at
// it never dangle, even after TPipe::Reset or the TPipe's destruction.
struct BufferRecord {
  uint8_t* data = nullptr;
  uint32_t ub_offset = 0;
  uint32_t bytes = 0;            // slot size, rounded up to 32 B
  uint32_t requested_bytes = 0;  // as passed to InitBuffer
  uint32_t generation = 0;       // bumped on every alloc and free: stale tensors no longer match
  BufferState state = BufferState::Free;
  AscendC::TPosition position = AscendC::TPosition::VECCALC;
  bool is_queue_slot = false;
  uint16_t owner_id = 0;  // the #N of "TQue<VECIN>#N": InitBuffer order within the pipe
  uint16_t slot = 0;
  QueueRecord* queue = nullptr;
};

// What a LocalTensor refers to: a byte window of one buffer, valid for one generation.
struct LocalRef {
  BufferRecord* record = nullptr;
  uint32_t generation = 0;
  uint32_t byte_offset = 0;
  uint32_t byte_size = 0;
};

inline bool is_usable(BufferState state) {
  return state == BufferState::Allocated || state == BufferState::Dequeued ||
         state == BufferState::Scratch;
}

[[noreturn]] void fail_local(const LocalRef& ref, const char* api, const char* role,
                             uint64_t first_elem, uint64_t count, uint32_t elem_size,
                             uint32_t alignment);

// Elements [first_elem, first_elem + count) of the tensor must lie in a live buffer that the
// kernel owns, and the first of them must be `alignment`-byte aligned in UB.
inline void check_local(const LocalRef& ref, const char* api, const char* role, uint64_t first_elem,
                        uint64_t count, uint32_t elem_size, uint32_t alignment) {
  const BufferRecord* record = ref.record;
  const uint64_t start = ref.byte_offset + first_elem * elem_size;
  if (record != nullptr && record->generation == ref.generation && is_usable(record->state) &&
      start + count * elem_size <= record->bytes && (record->ub_offset + start) % alignment == 0) {
    return;
  }
  fail_local(ref, api, role, first_elem, count, elem_size, alignment);
}

// --- Pipe ordering ---------------------------------------------------------------------------

// The pipes that touch UB: the scalar unit, the vector unit, the GM->UB and UB->GM DMAs.
enum class UbPipe : uint8_t { S, V, MTE2, MTE3 };

// Records that `pipe` reads or writes bytes [first_byte, +bytes) of ref's window (src/hazard.cpp).
// A read of bytes another pipe wrote raises unless a sync has ordered that write before it.
void note_ub_access(const LocalRef& ref, uint64_t first_byte, uint64_t bytes, UbPipe pipe,
                    bool write, const char* api, const char* role);
// A buffer AllocTensor hands out again: its old contents (and their writers) no longer matter.
void forget_ub_writes(const BufferRecord* record);

// "TQue<VECIN>#0 buffer 1" / "TBuf<VECCALC>#2".
std::string describe_buffer(const BufferRecord& record);
// "TQue<VECIN>#0 buffer 1 + 64 B (element 16)": the buffer and where the tensor starts in it.
std::string describe_local(const LocalRef& ref, uint32_t elem_size);

// Vector operands may coincide exactly (in place) or not at all; a partial overlap is an error.
void check_overlap(const char* api, const char* dst_role, const LocalRef& dst, uint64_t dst_bytes,
                   const char* src_role, const LocalRef& src, uint64_t src_bytes);

}  // namespace kiln::ascend::emu::detail
