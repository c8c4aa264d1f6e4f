// The move family's shared host code: dtype widths, device staging, planning and the launch.
#include "kernels/ascend/op_move/move_host.h"

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/op_move/move_kernels.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_MOVE)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_MOVE, launch_move_entry, uint32_t, "move")

}  // namespace

bool accept_move_tensor(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                        size_t* width) {
  switch (tensor.scalar_type()) {
    case ScalarType::Bool:
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::Half:
    case ScalarType::BFloat16:
    case ScalarType::Float:
    case ScalarType::Double:
      *width = tensor.element_size();
      return true;
    default:
      return decline(ctx, "%s of dtype %s", name, to_string(tensor.scalar_type()));
  }
}

bool MoveSource::upload(KernelRuntimeContext& ctx, const Tensor& tensor) {
  const size_t bytes = tensor.nbytes();
  elems_ = (bytes + kMoveSourceTail) / tensor.element_size();
  return buffer_.upload(ctx, tensor.const_data_ptr(), bytes, bytes + kMoveSourceTail);
}

bool MoveDestination::allocate(KernelRuntimeContext& ctx, uint64_t rows, uint32_t row_len,
                               uint32_t pitch, size_t width) {
  rows_ = rows;
  row_bytes_ = row_len * width;
  pitch_bytes_ = pitch * width;
  return buffer_.allocate(ctx, rows * pitch_bytes_);
}

bool MoveDestination::download(KernelRuntimeContext& ctx, Tensor& out) const {
  return buffer_.download_rows(ctx, out.mutable_data_ptr(), rows_, row_bytes_, pitch_bytes_);
}

bool plan_move_or_decline(KernelRuntimeContext& ctx, const MoveShape& shape, uint64_t row_len,
                          uint64_t dst_rows, size_t width, uint64_t src_elems, MoveTiling* tiling) {
  const Platform device = platform();
  const char* reason = plan_move(shape, row_len, dst_rows, width, src_elems, device.ub_bytes,
                                 device.vector_cores, tiling);
  return reason == nullptr || decline(ctx, "%s", reason);
}

bool launch_move(KernelRuntimeContext& ctx, size_t width, const MoveTiling& tiling, uint8_t* x,
                 uint8_t* index, uint8_t* y) {
  DeviceBuffer t;
  DeviceBuffer no_index;
  if (!t.upload(ctx, &tiling, sizeof(tiling))) return false;
  if (index == nullptr) {
    if (!no_index.allocate(ctx, 32)) return false;
    index = no_index.get();
  }
  return finish_launch(
      ctx, launch_move_entry(static_cast<uint32_t>(width), tiling.block_dim, x, index, y, t.get()));
}

bool move_into(KernelRuntimeContext& ctx, const MoveSource& src, size_t width,
               const MoveShape& shape, Tensor& out) {
  MoveTiling tiling;
  MoveDestination dst;
  return plan_move_or_decline(ctx, shape, 0, 0, width, src.elems(), &tiling) &&
         dst.allocate(ctx, tiling.dst_rows, tiling.row_len, tiling.pitch, width) &&
         launch_move(ctx, width, tiling, src.get(), nullptr, dst.get()) && dst.download(ctx, out);
}

MoveShape out_shape(const Tensor& out, const int64_t* src_strides, int64_t src_offset) {
  MoveShape shape;
  for (int64_t d = 0; d < out.dim(); ++d) {
    shape.add(out.size(d), src_strides[d], out.strides()[static_cast<size_t>(d)]);
  }
  shape.src_offset = src_offset;
  return shape;
}

}  // namespace kiln::ascend
