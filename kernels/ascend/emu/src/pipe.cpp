// TPipe/TQue/TBuf: UB planning and the queue state machine (alloc -> EnQue -> DeQue -> free).
#include "kernels/ascend/emu/api/pipe.h"

#include <string>

#include "kernels/ascend/emu/src/state.h"

namespace kiln::ascend::emu::detail {
namespace {

using AscendC::TPosition;

std::string queue_name(TPosition position, const QueueRecord* queue) {
  std::string name = "TQue<";
  name += AscendC::position_name(position);
  name += ">";
  if (queue != nullptr) name += "#" + std::to_string(queue->id);
  return name;
}

bool is_ub_position(TPosition position) {
  return position == TPosition::VECIN || position == TPosition::VECOUT ||
         position == TPosition::VECCALC;
}

PipeRecord& open_pipe(PipeRecord* pipe, const char* api) {
  if (pipe == nullptr || !pipe->open) raise(std::string(api) + ": the TPipe is no longer alive");
  return *pipe;
}

uint32_t round_up_32(uint64_t bytes) { return static_cast<uint32_t>((bytes + 31) / 32 * 32); }

// Takes `bytes` of UB from the pipe, or explains why the SoC has no room for them.
uint32_t take_ub(PipeRecord& pipe, uint64_t bytes, const std::string& what) {
  LaunchContext& launch = launch_context();
  const uint64_t used = uint64_t{pipe.used_bytes} + bytes;
  if (used > launch.soc.ub_usable_bytes) {
    raise("TPipe::InitBuffer of " + what + ": UB use would reach " + format_bytes(used) +
          ", over the " + format_bytes(launch.soc.ub_usable_bytes) + " a TPipe can use on " +
          launch.soc.name +
          " (UB capacity exceeded; on the device this is error 507015, ub address out of "
          "bounds)");
  }
  const uint32_t offset = pipe.used_bytes;
  pipe.used_bytes = static_cast<uint32_t>(used);
  if (pipe.used_bytes > launch.block.ub_high_water) launch.block.ub_high_water = pipe.used_bytes;
  return offset;
}

BufferRecord& new_buffer(PipeRecord& pipe, TPosition position, uint32_t offset, uint32_t bytes,
                         uint32_t requested, uint16_t owner, uint16_t slot, QueueRecord* queue) {
  LaunchContext& launch = launch_context();
  BufferRecord& record = launch.block.buffers.emplace_back();
  record.data = launch.ub + offset;
  record.ub_offset = offset;
  record.bytes = bytes;
  record.requested_bytes = requested;
  record.state = queue != nullptr ? BufferState::Free : BufferState::Scratch;
  record.position = position;
  record.is_queue_slot = queue != nullptr;
  record.owner_id = owner;
  record.slot = slot;
  record.queue = queue;
  pipe.buffers.push_back(&record);
  return record;
}

QueueRecord& live_queue(QueueRecord* queue, TPosition position, const char* api) {
  if (queue == nullptr) {
    raise(queue_name(position, nullptr) + "::" + api +
          ": the queue has no buffers yet (call TPipe::InitBuffer on it first)");
  }
  if (queue->released) {
    raise(queue_name(position, queue) + "::" + api +
          ": the queue's buffers were released by TPipe::Reset (InitBuffer it again)");
  }
  return *queue;
}

// The tensor must be a current tensor of this queue; says what is wrong otherwise.
BufferRecord& own_tensor(QueueRecord& queue, const LocalRef& tensor, const char* api) {
  const std::string where = queue_name(queue.slots.front()->position, &queue) + "::" + api;
  if (tensor.record == nullptr) raise(where + ": the tensor was never allocated");
  BufferRecord& record = *tensor.record;
  if (record.queue != &queue) {
    raise(where + ": the tensor belongs to " + describe_buffer(record) +
          ", not to this queue (a foreign tensor)");
  }
  if (record.generation != tensor.generation) {
    raise(where + ": " + describe_buffer(record) +
          (record.state == BufferState::Free
               ? " was already freed by FreeTensor (use after free)"
               : " was freed and allocated again since this tensor was taken (a stale tensor)"));
  }
  return record;
}

}  // namespace

PipeRecord* pipe_open(void* pipe_object) {
  LaunchContext& launch = launch_context();
  if (launch.block.live_pipe != nullptr) {
    raise("TPipe: a second TPipe while another is alive; one TPipe owns the block's UB");
  }
  PipeRecord& pipe = launch.block.pipes.emplace_back();
  pipe.object = pipe_object;
  launch.block.live_pipe = &pipe;
  return &pipe;
}

void pipe_close(PipeRecord* pipe) noexcept {
  LaunchContext* launch = thread_state().launch;
  // Only the block that opened the pipe may close it; records of earlier blocks are gone.
  if (launch == nullptr || pipe == nullptr || launch->block.live_pipe != pipe) return;
  pipe->open = false;
  launch->block.live_pipe = nullptr;
}

void* current_pipe_object() {
  PipeRecord* pipe = launch_context().block.live_pipe;
  return pipe == nullptr ? nullptr : pipe->object;
}

void pipe_reset(PipeRecord* pipe) {
  PipeRecord& live = open_pipe(pipe, "TPipe::Reset");
  for (BufferRecord* buffer : live.buffers) {
    buffer->state = BufferState::Released;
    ++buffer->generation;
  }
  for (QueueRecord* queue : live.queues) queue->released = true;
  live.buffers.clear();
  live.queues.clear();
  live.used_bytes = 0;
}

QueueRecord* pipe_init_queue(PipeRecord* pipe, QueueRecord* existing, TPosition position,
                             int32_t depth, int32_t num, uint32_t len) {
  PipeRecord& live = open_pipe(pipe, "TPipe::InitBuffer");
  LaunchContext& launch = launch_context();
  if (existing != nullptr && !existing->released) {
    raise("TPipe::InitBuffer called twice for " + queue_name(position, existing) +
          "; a queue takes its buffers once (TPipe::Reset first to plan UB again)");
  }
  const std::string what = queue_name(position, nullptr) + "#" + std::to_string(live.next_id) +
                           " (" + std::to_string(num) + " buffers of " + format_bytes(len) + ")";
  if (!is_ub_position(position)) {
    raise("TPipe::InitBuffer of " + what +
          ": only UB queues (VECIN, VECOUT, VECCALC) are emulated; use the Matmul API for L1/L0");
  }
  if (num <= 0 || len == 0) raise("TPipe::InitBuffer of " + what + ": needs at least one byte");
  uint32_t at_position = static_cast<uint32_t>(num);
  for (const QueueRecord* queue : live.queues) {
    if (queue->position == position) at_position += static_cast<uint32_t>(queue->slots.size());
  }
  if (at_position > launch.soc.max_queue_buffers_per_position) {
    raise("TPipe::InitBuffer of " + what + ": " + std::to_string(at_position) +
          " queue buffers at TPosition " + AscendC::position_name(position) + " on " +
          launch.soc.name + ", which allows at most " +
          std::to_string(launch.soc.max_queue_buffers_per_position) + " buffers per TPosition");
  }
  const uint32_t slot_bytes = round_up_32(len);
  const uint32_t offset = take_ub(live, uint64_t{slot_bytes} * static_cast<uint32_t>(num), what);
  QueueRecord& queue = launch.block.queues.emplace_back();
  queue.id = live.next_id++;
  queue.position = position;
  queue.depth = depth;
  for (int32_t i = 0; i < num; ++i) {
    queue.slots.push_back(&new_buffer(live, position,
                                      offset + static_cast<uint32_t>(i) * slot_bytes, slot_bytes,
                                      len, queue.id, static_cast<uint16_t>(i), &queue));
  }
  live.queues.push_back(&queue);
  return &queue;
}

BufferRecord* pipe_init_buf(PipeRecord* pipe, BufferRecord* existing, TPosition position,
                            uint32_t len) {
  PipeRecord& live = open_pipe(pipe, "TPipe::InitBuffer");
  std::string what = "TBuf<";
  what += AscendC::position_name(position);
  what += ">#" + std::to_string(live.next_id) + " (" + format_bytes(len) + ")";
  if (existing != nullptr && existing->state != BufferState::Released) {
    raise("TPipe::InitBuffer called twice for " + describe_buffer(*existing) +
          "; a TBuf takes its buffer once (TPipe::Reset first to plan UB again)");
  }
  if (!is_ub_position(position)) {
    raise("TPipe::InitBuffer of " + what +
          ": only UB positions (VECIN, VECOUT, VECCALC) are "
          "emulated");
  }
  if (len == 0) raise("TPipe::InitBuffer of " + what + ": needs at least one byte");
  const uint32_t bytes = round_up_32(len);
  const uint32_t offset = take_ub(live, bytes, what);
  return &new_buffer(live, position, offset, bytes, len, live.next_id++, 0, nullptr);
}

LocalRef queue_alloc(QueueRecord* queue, TPosition position) {
  QueueRecord& q = live_queue(queue, position, "AllocTensor");
  const uint32_t n = static_cast<uint32_t>(q.slots.size());
  for (uint32_t step = 0; step < n; ++step) {
    const uint32_t index = (q.next_alloc + step) % n;
    BufferRecord& slot = *q.slots[index];
    if (slot.state != BufferState::Free) continue;
    slot.state = BufferState::Allocated;
    ++slot.generation;
    forget_ub_writes(&slot);
    q.next_alloc = (index + 1) % n;
    return LocalRef{&slot, slot.generation, 0, slot.requested_bytes};
  }
  raise(queue_name(position, &q) + "::AllocTensor with no free buffer: all " + std::to_string(n) +
        " buffers are allocated or in the queue (FreeTensor one first; on the device this "
        "waits forever, a hang)");
}

void queue_enque(QueueRecord* queue, TPosition position, const LocalRef& tensor) {
  QueueRecord& q = live_queue(queue, position, "EnQue");
  BufferRecord& record = own_tensor(q, tensor, "EnQue");
  if (record.state == BufferState::Queued) {
    raise(queue_name(position, &q) + "::EnQue: " + describe_buffer(record) +
          " is already in the queue");
  }
  if (q.fifo.size() >= static_cast<size_t>(q.depth)) {
    raise(queue_name(position, &q) + "::EnQue past the queue depth: the queue has depth " +
          std::to_string(q.depth) + " and already holds " + std::to_string(q.fifo.size()) +
          " tensors (DeQue before enqueuing more, or declare TQue<..., depth> deeper)");
  }
  record.state = BufferState::Queued;
  q.fifo.push_back(&record);
  queue_sync(&record, q.position, true);
}

LocalRef queue_deque(QueueRecord* queue, TPosition position) {
  QueueRecord& q = live_queue(queue, position, "DeQue");
  if (q.fifo.empty()) {
    raise(queue_name(position, &q) +
          "::DeQue on an empty queue: nothing was EnQue'd since the last DeQue (on the device "
          "this waits forever, a hang)");
  }
  BufferRecord& record = *q.fifo.front();
  q.fifo.pop_front();
  record.state = BufferState::Dequeued;
  queue_sync(&record, q.position, false);
  return LocalRef{&record, record.generation, 0, record.requested_bytes};
}

void queue_free(QueueRecord* queue, TPosition position, const LocalRef& tensor) {
  QueueRecord& q = live_queue(queue, position, "FreeTensor");
  const std::string where = queue_name(position, &q) + "::FreeTensor";
  if (tensor.record != nullptr && tensor.record->queue == &q &&
      tensor.record->generation != tensor.generation && tensor.record->state == BufferState::Free) {
    raise(where + ": " + describe_buffer(*tensor.record) +
          " is already free (FreeTensor twice, a double free)");
  }
  BufferRecord& record = own_tensor(q, tensor, "FreeTensor");
  if (record.state == BufferState::Queued) {
    raise(where + ": " + describe_buffer(record) + " still sits in the queue (DeQue it first)");
  }
  if (tensor.byte_offset != 0) {
    raise(where + ": the tensor is a slice starting " + format_bytes(tensor.byte_offset) +
          " into " + describe_buffer(record) + "; free the tensor AllocTensor/DeQue returned");
  }
  record.state = BufferState::Free;
  ++record.generation;
}

int32_t queue_count(const QueueRecord* queue) {
  return queue == nullptr ? 0 : static_cast<int32_t>(queue->fifo.size());
}

bool queue_has_free_slot(const QueueRecord* queue) {
  if (queue == nullptr || queue->released) return false;
  for (const BufferRecord* slot : queue->slots) {
    if (slot->state == BufferState::Free) return true;
  }
  return false;
}

LocalRef buf_get(BufferRecord* buffer, TPosition position, uint64_t bytes, uint64_t byte_offset) {
  std::string name = "TBuf<";
  name += AscendC::position_name(position);
  name += ">";
  if (buffer == nullptr) {
    raise(name + "::Get: the TBuf has no buffer yet (call TPipe::InitBuffer on it first)");
  }
  if (buffer->state == BufferState::Released) {
    raise(describe_buffer(*buffer) + "::Get: the buffer was released by TPipe::Reset");
  }
  if (bytes == UINT64_MAX) bytes = buffer->requested_bytes;
  if (byte_offset + bytes > buffer->bytes) {
    raise(describe_buffer(*buffer) + "::Get of " + format_bytes(bytes) + " at byte " +
          std::to_string(byte_offset) + " exceeds its " + format_bytes(buffer->bytes) +
          ": UB access out of bounds");
  }
  return LocalRef{buffer, buffer->generation, static_cast<uint32_t>(byte_offset),
                  static_cast<uint32_t>(bytes)};
}

}  // namespace kiln::ascend::emu::detail
