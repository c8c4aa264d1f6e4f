// TPipe, TQue and TBuf: Unified Buffer allocation and the queue state machine, checked.
#pragma once

#include <cstdint>

#include "kernels/ascend/emu/api/detail.h"
#include "kernels/ascend/emu/api/local_tensor.h"

namespace kiln::ascend::emu::detail {

struct PipeRecord;

// The library side of TPipe/TQue/TBuf (src/pipe.cpp). Every call checks its rule and raises.
PipeRecord* pipe_open(void* pipe_object);
void pipe_close(PipeRecord* pipe) noexcept;
void pipe_reset(PipeRecord* pipe);
void* current_pipe_object();
QueueRecord* pipe_init_queue(PipeRecord* pipe, QueueRecord* existing, AscendC::TPosition position,
                             int32_t depth, int32_t num, uint32_t len);
BufferRecord* pipe_init_buf(PipeRecord* pipe, BufferRecord* existing, AscendC::TPosition position,
                            uint32_t len);

LocalRef queue_alloc(QueueRecord* queue, AscendC::TPosition position);
void queue_enque(QueueRecord* queue, AscendC::TPosition position, const LocalRef& tensor);
LocalRef queue_deque(QueueRecord* queue, AscendC::TPosition position);
void queue_free(QueueRecord* queue, AscendC::TPosition position, const LocalRef& tensor);
int32_t queue_count(const QueueRecord* queue);
bool queue_has_free_slot(const QueueRecord* queue);

LocalRef buf_get(BufferRecord* buffer, AscendC::TPosition position, uint64_t bytes,
                 uint64_t byte_offset);

}  // namespace kiln::ascend::emu::detail

namespace AscendC {

// A queue of `depth` entries between two pipes; InitBuffer gives it its buffers.
template <TPosition pos, int32_t depth = 1>
class TQue {
  static_assert(depth >= 1, "TQue: depth must be at least 1");

 public:
  template <class T>
  LocalTensor<T> AllocTensor() {
    kiln::ascend::emu::detail::require_dtype<T>("TQue::AllocTensor");
    return LocalTensor<T>(kiln::ascend::emu::detail::queue_alloc(queue_, pos));
  }

  template <class T>
  bool EnQue(const LocalTensor<T>& tensor) {
    kiln::ascend::emu::detail::queue_enque(queue_, pos, tensor.ref());
    return true;
  }

  template <class T>
  LocalTensor<T> DeQue() {
    kiln::ascend::emu::detail::require_dtype<T>("TQue::DeQue");
    return LocalTensor<T>(kiln::ascend::emu::detail::queue_deque(queue_, pos));
  }

  template <class T>
  void FreeTensor(LocalTensor<T>& tensor) {
    kiln::ascend::emu::detail::queue_free(queue_, pos, tensor.ref());
  }

  bool VacantInQue() const { return kiln::ascend::emu::detail::queue_count(queue_) < depth; }
  bool HasTensorInQue() const { return kiln::ascend::emu::detail::queue_count(queue_) > 0; }
  int32_t GetTensorCountInQue() const { return kiln::ascend::emu::detail::queue_count(queue_); }
  bool HasIdleBuffer() const { return kiln::ascend::emu::detail::queue_has_free_slot(queue_); }

  // For TPipe::InitBuffer.
  kiln::ascend::emu::detail::QueueRecord*& record() { return queue_; }

 private:
  kiln::ascend::emu::detail::QueueRecord* queue_ = nullptr;
};

// Scratch space outside the queue state machine (temporaries, reduction work areas).
template <TPosition pos = TPosition::VECCALC>
class TBuf {
 public:
  template <class T>
  LocalTensor<T> Get() {
    kiln::ascend::emu::detail::require_dtype<T>("TBuf::Get");
    return LocalTensor<T>(kiln::ascend::emu::detail::buf_get(buffer_, pos, UINT64_MAX, 0));
  }

  template <class T>
  LocalTensor<T> Get(uint32_t count) {
    kiln::ascend::emu::detail::require_dtype<T>("TBuf::Get");
    return LocalTensor<T>(
        kiln::ascend::emu::detail::buf_get(buffer_, pos, uint64_t{count} * sizeof(T), 0));
  }

  template <class T>
  LocalTensor<T> GetWithOffset(uint32_t count, uint32_t byteOffset) {
    kiln::ascend::emu::detail::require_dtype<T>("TBuf::GetWithOffset");
    return LocalTensor<T>(
        kiln::ascend::emu::detail::buf_get(buffer_, pos, uint64_t{count} * sizeof(T), byteOffset));
  }

  // For TPipe::InitBuffer.
  kiln::ascend::emu::detail::BufferRecord*& record() { return buffer_; }

 private:
  kiln::ascend::emu::detail::BufferRecord* buffer_ = nullptr;
};

// Owns the block's Unified Buffer: hands out queue slots and TBufs, checks the UB capacity of
// the current SoC and the per-position buffer limit.
class TPipe {
 public:
  TPipe() : pipe_(kiln::ascend::emu::detail::pipe_open(this)) {}
  ~TPipe() { kiln::ascend::emu::detail::pipe_close(pipe_); }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  template <TPosition pos, int32_t depth>
  bool InitBuffer(TQue<pos, depth>& que, uint8_t num, uint32_t len) {
    que.record() =
        kiln::ascend::emu::detail::pipe_init_queue(pipe_, que.record(), pos, depth, num, len);
    return true;
  }

  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
    buf.record() = kiln::ascend::emu::detail::pipe_init_buf(pipe_, buf.record(), pos, len);
    return true;
  }

  // Releases every buffer: tensors and queues from before become invalid until InitBuffer.
  void Reset() { kiln::ascend::emu::detail::pipe_reset(pipe_); }
  void Destroy() { kiln::ascend::emu::detail::pipe_reset(pipe_); }

  // Event ids for SetFlag/WaitFlag; every id works, since the emulator's pipes never race.
  TEventID FetchEventID(HardEvent) { return 0; }
  template <HardEvent event>
  TEventID FetchEventID() {
    return 0;
  }
  template <HardEvent event>
  TEventID AllocEventID() {
    return 0;
  }
  template <HardEvent event>
  void ReleaseEventID(TEventID) {}

 private:
  kiln::ascend::emu::detail::PipeRecord* pipe_;
};

}  // namespace AscendC

// The pipe the running kernel constructed. At global scope, not in AscendC, as CANN's
// kernel_common.h declares it: a kernel that writes AscendC::GetTPipePtr() fails here as there.
inline AscendC::TPipe* GetTPipePtr() {
  return static_cast<AscendC::TPipe*>(kiln::ascend::emu::detail::current_pipe_object());
}
