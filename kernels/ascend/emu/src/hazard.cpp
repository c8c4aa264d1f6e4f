// Pipe ordering: which pipe last wrote each UB byte range, and whether a sync has ordered it before
// the pipe that reads it. The pipes of an AI core run asynchronously on the device; the emulator
// runs one instruction at a time, so it tracks the order the kernel's syncs establish instead.
//
// Each pipe has a vector clock: clock[p][q] is the last instruction of pipe q that pipe p is known
// to run after. An instruction of pipe p ticks clock[p][p]. SetFlag<A_B> snapshots A's clock and
// WaitFlag<A_B> merges the snapshot into B's; PipeBarrier<PIPE_ALL> merges every clock into every
// other; a queue's EnQue/DeQue is the SetFlag/WaitFlag pair of its position (VECIN: MTE2 -> V,
// VECOUT: V -> MTE3), as TQue issues them on the device. A read of bytes another pipe wrote must
// see that write in its clock.
#include <algorithm>
#include <string>

#include "kernels/ascend/emu/src/state.h"

namespace kiln::ascend::emu::detail {
namespace {

using AscendC::HardEvent;

// Indexed by UbPipe: the short name (as in HardEvent) and what the pipe is.
const char* const kPipeNames[] = {"S", "V", "MTE2", "MTE3"};
const char* const kPipeRoles[] = {"the scalar unit", "the vector unit", "the GM->UB DMA (MTE2)",
                                  "the UB->GM DMA (MTE3)"};

const char* pipe_name(UbPipe pipe) { return kPipeNames[static_cast<size_t>(pipe)]; }
const char* pipe_role(UbPipe pipe) { return kPipeRoles[static_cast<size_t>(pipe)]; }

// The (before, after) pipes a HardEvent orders, when both are pipes that touch UB.
bool event_pipes(HardEvent event, UbPipe& before, UbPipe& after) {
  struct Pair {
    HardEvent event;
    UbPipe before;
    UbPipe after;
  };
  static const Pair kPairs[] = {
      {HardEvent::MTE2_V, UbPipe::MTE2, UbPipe::V},
      {HardEvent::V_MTE2, UbPipe::V, UbPipe::MTE2},
      {HardEvent::MTE3_V, UbPipe::MTE3, UbPipe::V},
      {HardEvent::V_MTE3, UbPipe::V, UbPipe::MTE3},
      {HardEvent::MTE3_MTE2, UbPipe::MTE3, UbPipe::MTE2},
      {HardEvent::MTE2_MTE3, UbPipe::MTE2, UbPipe::MTE3},
      {HardEvent::S_V, UbPipe::S, UbPipe::V},
      {HardEvent::V_S, UbPipe::V, UbPipe::S},
      {HardEvent::S_MTE2, UbPipe::S, UbPipe::MTE2},
      {HardEvent::MTE2_S, UbPipe::MTE2, UbPipe::S},
      {HardEvent::S_MTE3, UbPipe::S, UbPipe::MTE3},
      {HardEvent::MTE3_S, UbPipe::MTE3, UbPipe::S},
  };
  for (const Pair& pair : kPairs) {
    if (pair.event == event) {
      before = pair.before;
      after = pair.after;
      return true;
    }
  }
  return false;  // cube, MTE1 and FIX events order nothing the emulator tracks
}

size_t index(UbPipe pipe) { return static_cast<size_t>(pipe); }

void merge_into(PipeClock& into, const PipeClock& from) {
  for (size_t q = 0; q < kUbPipes; ++q) into[q] = std::max(into[q], from[q]);
}

uint64_t tick(SyncState& sync, UbPipe pipe) {
  const uint64_t now = ++sync.now;
  sync.clock[index(pipe)][index(pipe)] = now;
  return now;
}

[[noreturn]] void fail_order(const LocalRef& ref, const WriteSpan& span, UbPipe reader,
                             const char* api, const char* role) {
  const std::string event = std::string(pipe_name(span.pipe)) + "_" + pipe_name(reader);
  raise(std::string(api) + " " + role + ": reads UB bytes [" + std::to_string(span.begin) + ", " +
        std::to_string(span.end) + ") of " + describe_buffer(*ref.record) + ", which " + span.api +
        " wrote on " + pipe_role(span.pipe) + ", and nothing orders " + pipe_name(span.pipe) +
        " before " + pipe_name(reader) + " (" + pipe_role(reader) +
        ") since: the read may see the old bytes. Add SetFlag<HardEvent::" + event +
        ">(id) and WaitFlag<HardEvent::" + event + ">(id) between them (or PipeBarrier<PIPE_ALL>)");
}

}  // namespace

void note_ub_access(const LocalRef& ref, uint64_t first_byte, uint64_t bytes, UbPipe pipe,
                    bool write, const char* api, const char* role) {
  if (ref.record == nullptr || bytes == 0) return;
  SyncState& sync = launch_context().block.sync;
  const uint64_t begin = uint64_t{ref.byte_offset} + first_byte;
  const uint64_t end = begin + bytes;
  std::vector<WriteSpan>& spans = sync.writes[ref.record];
  if (!write) {
    const PipeClock& seen = sync.clock[index(pipe)];
    for (const WriteSpan& span : spans) {
      if (span.pipe == pipe || span.end <= begin || end <= span.begin) continue;
      if (seen[index(span.pipe)] < span.tick) fail_order(ref, span, pipe, api, role);
    }
    tick(sync, pipe);
    return;
  }
  const uint64_t now = tick(sync, pipe);
  // The new span replaces what it covers; the pieces of older spans outside it stay.
  std::vector<WriteSpan> kept;
  kept.reserve(spans.size() + 1);
  for (const WriteSpan& span : spans) {
    if (span.end <= begin || end <= span.begin) {
      kept.push_back(span);
      continue;
    }
    if (span.begin < begin) kept.push_back({span.begin, begin, span.pipe, span.tick, span.api});
    if (end < span.end) kept.push_back({end, span.end, span.pipe, span.tick, span.api});
  }
  // Element-by-element SetValue loops extend the previous span instead of adding one each.
  if (!kept.empty() && kept.back().pipe == pipe && kept.back().end == begin) {
    kept.back().end = end;
    kept.back().tick = now;
    kept.back().api = api;
  } else {
    kept.push_back({begin, end, pipe, now, api});
  }
  spans = std::move(kept);
}

void forget_ub_writes(const BufferRecord* record) {
  launch_context().block.sync.writes.erase(record);
}

void queue_sync(const BufferRecord* record, AscendC::TPosition position, bool enque) {
  UbPipe before;
  UbPipe after;
  if (position == AscendC::TPosition::VECIN) {
    before = UbPipe::MTE2;
    after = UbPipe::V;
  } else if (position == AscendC::TPosition::VECOUT) {
    before = UbPipe::V;
    after = UbPipe::MTE3;
  } else {
    return;  // VECCALC queues stay on the vector unit
  }
  SyncState& sync = launch_context().block.sync;
  if (enque) {
    sync.queued[record] = sync.clock[index(before)];
  } else {
    merge_into(sync.clock[index(after)], sync.queued[record]);
  }
}

void note_pipe_barrier(pipe_t pipe) {
  if (pipe != PIPE_ALL) return;  // a barrier of one pipe orders that pipe only
  SyncState& sync = launch_context().block.sync;
  PipeClock all{};
  for (const PipeClock& clock : sync.clock) merge_into(all, clock);
  for (PipeClock& clock : sync.clock) clock = all;
}

void note_set_flag(AscendC::HardEvent event, int32_t id) {
  UbPipe before;
  UbPipe after;
  if (!event_pipes(event, before, after)) return;
  SyncState& sync = launch_context().block.sync;
  sync.flags[{static_cast<uint8_t>(event), id}] = sync.clock[index(before)];
}

void note_wait_flag(AscendC::HardEvent event, int32_t id) {
  UbPipe before;
  UbPipe after;
  if (!event_pipes(event, before, after)) return;
  SyncState& sync = launch_context().block.sync;
  auto it = sync.flags.find({static_cast<uint8_t>(event), id});
  // A wait with no flag set waits on the device too (for a flag set in an earlier iteration or
  // the kernel's start); it orders nothing here.
  if (it == sync.flags.end()) return;
  merge_into(sync.clock[index(after)], it->second);
}

}  // namespace kiln::ascend::emu::detail
