// Emulator internals: per-thread state (SoC, seed, device memory) and the running launch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels/ascend/emu/api/detail.h"
#include "kernels/ascend/emu/emulator.h"

namespace kiln::ascend::emu::detail {

// A rule violation inside a block; run_launch turns it into LaunchOutcome::message.
class Violation : public std::exception {
 public:
  explicit Violation(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

struct Allocation {
  uint8_t* begin;
  size_t bytes;
};

// Half-open byte range [begin, end) of global memory.
struct Interval {
  uintptr_t begin;
  uintptr_t end;
};

struct PipeRecord;

struct QueueRecord {
  uint16_t id = 0;
  AscendC::TPosition position = AscendC::TPosition::VECIN;
  int32_t depth = 1;
  std::vector<BufferRecord*> slots;
  std::deque<BufferRecord*> fifo;  // EnQue'd, not yet DeQue'd
  uint32_t next_alloc = 0;         // slots are handed out in ring order, as on the device
  bool released = false;           // by TPipe::Reset
};

struct PipeRecord {
  void* object = nullptr;
  bool open = true;
  uint32_t used_bytes = 0;
  uint16_t next_id = 0;
  std::vector<QueueRecord*> queues;
  std::vector<BufferRecord*> buffers;  // every slot and TBuf since the last Reset
};

// Pipe ordering (src/hazard.cpp). PipeClock[q]: the last instruction of pipe q known done.
constexpr size_t kUbPipes = 4;
using PipeClock = std::array<uint64_t, kUbPipes>;

// Bytes [begin, end) of a buffer, as `api` on `pipe` last wrote them at tick `tick`.
struct WriteSpan {
  uint64_t begin;
  uint64_t end;
  UbPipe pipe;
  uint64_t tick;
  const char* api;
};

struct SyncState {
  uint64_t now = 0;
  std::array<PipeClock, kUbPipes> clock{};
  std::map<std::pair<uint8_t, int32_t>, PipeClock> flags;     // (HardEvent, id) -> snapshot
  std::unordered_map<const BufferRecord*, PipeClock> queued;  // EnQue'd tensors' snapshots
  std::unordered_map<const BufferRecord*, std::vector<WriteSpan>> writes;
};

// EnQue (enque) or DeQue of `record` on a queue at `position`: the sync TQue issues there.
void queue_sync(const BufferRecord* record, AscendC::TPosition position, bool enque);

// Everything one block owns. Reset before each block: blocks share nothing but GM.
struct BlockState {
  uint32_t index = 0;
  std::deque<BufferRecord> buffers;
  std::deque<QueueRecord> queues;
  std::deque<PipeRecord> pipes;
  PipeRecord* live_pipe = nullptr;
  uint32_t ub_high_water = 0;    // bytes InitBuffer'ed, at most
  std::vector<Interval> writes;  // GM bytes this block wrote, merged when contiguous
  SyncState sync;
};

struct ArgInfo {
  std::string name;
  const uint8_t* address;  // nullptr for arguments that are not pointers
};

class LaunchContext {
 public:
  LaunchContext(const char* kernel_name, std::vector<ArgInfo> arguments, const SocProfile& profile,
                uint32_t blocks, uint64_t launch_seed);
  ~LaunchContext();
  LaunchContext(const LaunchContext&) = delete;
  LaunchContext& operator=(const LaunchContext&) = delete;

  // Fresh UB (a garbage pattern, as uninitialised UB holds) and fresh records.
  void begin_block(uint32_t block_index);
  void end_block();

  std::string kernel;
  std::vector<ArgInfo> args;
  const SocProfile& soc;
  uint32_t block_dim;
  uint64_t seed;
  uint8_t* ub = nullptr;
  BlockState block;
  std::vector<std::vector<Interval>> writes;  // per block index, after end_block
  KernelReport report;
  uint8_t* workspace = nullptr;
  uint8_t* user_workspace = nullptr;

 private:
  std::vector<uint8_t> ub_storage_;
  size_t dirty_ub_bytes_;  // what the previous block may have touched
};

class ThreadState {
 public:
  ThreadState();
  ~ThreadState();

  // The live allocation holding `address`, or nullptr.
  const Allocation* find(const void* address) const;

  const SocProfile* soc;
  uint64_t seed;
  std::map<uintptr_t, Allocation> allocations;
  std::vector<KernelReport> history;
  LaunchContext* launch = nullptr;
};

ThreadState& thread_state();
// The launch being run on this thread; calling the kernel API outside one aborts.
LaunchContext& launch_context();

std::string format_bytes(uint64_t bytes);  // "70 B"
const SocProfile& profile_for(Soc soc);

}  // namespace kiln::ascend::emu::detail
