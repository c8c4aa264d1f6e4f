// Host side shared by the move family's wrappers: which tensors the kernel takes, a source
// staged in device memory, and one planned move from it into an out tensor.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_move/move_tiling.h"
#include "runtime/core/tensor.h"

namespace kiln::ascend {

// The element width the move kernels move `tensor`'s dtype in (every real dtype, bool and the
// 16-bit floats: a move keeps bytes, so no SoC lacks one); declines other dtypes.
bool accept_move_tensor(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                        size_t* width);

// Bytes after a source's last element: a tile reads whole blocks, up to one block past the last
// element it uses.
constexpr size_t kMoveSourceTail = 32;

// `tensor` in device memory, with kMoveSourceTail zero bytes after it.
class MoveSource {
 public:
  bool upload(KernelRuntimeContext& ctx, const Tensor& tensor);
  uint8_t* get() const { return buffer_.get(); }
  // Elements of the buffer, the tail included (the kernel's view of it).
  uint64_t elems() const { return elems_; }

 private:
  DeviceBuffer buffer_;
  uint64_t elems_ = 0;
};

// A destination in device memory: rows of row_len elements at a 32-byte pitch.
class MoveDestination {
 public:
  bool allocate(KernelRuntimeContext& ctx, uint64_t rows, uint32_t row_len, uint32_t pitch,
                size_t width);
  uint8_t* get() const { return buffer_.get(); }
  // The rows, without their padding, into out's memory.
  bool download(KernelRuntimeContext& ctx, Tensor& out) const;

 private:
  DeviceBuffer buffer_;
  uint64_t rows_ = 0;
  size_t row_bytes_ = 0;
  size_t pitch_bytes_ = 0;
};

// plan_move on the current device; declines with the planner's reason.
bool plan_move_or_decline(KernelRuntimeContext& ctx, const MoveShape& shape, uint64_t row_len,
                          uint64_t dst_rows, size_t width, uint64_t src_elems, MoveTiling* tiling);

// Launches a planned move of `width`-byte elements from x into y; `index` is the gather's
// index tensor in device memory, or nullptr.
bool launch_move(KernelRuntimeContext& ctx, size_t width, const MoveTiling& tiling, uint8_t* x,
                 uint8_t* index, uint8_t* y);

// Plans `shape` (dims in out's logical order, destination strides out's), moves it from `src`
// into a fresh destination and downloads it into out, whose size is already final.
bool move_into(KernelRuntimeContext& ctx, const MoveSource& src, size_t width,
               const MoveShape& shape, Tensor& out);

// The MoveShape copying out's logical dims from a source with `src_strides` (per out dim) at
// `src_offset`, into out's own layout.
MoveShape out_shape(const Tensor& out, const int64_t* src_strides, int64_t src_offset);

}  // namespace kiln::ascend
